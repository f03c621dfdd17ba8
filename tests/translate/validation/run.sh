#!/bin/sh
# solar translate's validation (does it catch a wrong translation? at what sizes?) and its notes
#   run.sh SOLAR CASE     CASE: norm_eval (PyTorch) or jax_norm (--jax), derived_heads, full_sizes,
#                         bn_training
# The model is translated with --keep, which keeps the validation's files (validate.air, the
# wrapper model.py / fn.py); the translation must validate (PASS).  Then each mutation of
# validate.air, a kernel that drops a factor that is 1 (or a term that is 0) at the model's
# construction, must FAIL (exit 1) against the same wrapper: the wrapper draws parameters and
# inputs whose elements are all equal at random, so ones and zeros do not hide the bug.
# derived_heads: the sizes it validates at are small, and HEAD_DIM = DIM // N_HEADS holds there.
# full_sizes: no smaller size builds the model: validated at its own sizes, with a warning.
# bn_training: goldens/conv_bn_relu.py never calls eval(): a note on stderr names the module.
solar=$1 name=$2
here=$(cd "$(dirname "$0")" && pwd)
: "${SOLAR_PYTHON:?run.sh needs SOLAR_PYTHON}"
"$SOLAR_PYTHON" -c 'import torch' 2>/dev/null || { echo "SKIP: no PyTorch at SOLAR_PYTHON=$SOLAR_PYTHON"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/solar-validation-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case $name in
derived_heads|full_sizes|bn_training)
  model=$here/$name.py
  [ "$name" = bn_training ] && model=$here/../goldens/conv_bn_relu.py
  "$solar" translate "$model" -o "$tmp/$name.air" >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/out" "$tmp/err"; fail "solar translate"; }
  cat "$tmp/out" "$tmp/err"
  if [ "$name" = derived_heads ]; then
    stream=out want="$name.air: validated: PASS (solar validate --backend cpu at B=2 S=32 DIM=32 HEAD_DIM=2; about 571 k statement executions)"
  elif [ "$name" = bn_training ]; then
    stream=err want="$name.air: note: bn: batch_norm in training mode (the model was not put in eval()): batch statistics; the running-statistics update is not translated"
  else
    stream=err want="$name.air: warning: no smaller sizes build the model without some result dimension becoming 1, so it is validated at its own sizes (DIM=96)"
  fi
  sed "s|$tmp/||" "$tmp/$stream" | grep -qF "$want" || fail "expected on std$stream: '$want'"
  echo PASS; exit 0 ;;
norm_eval) flag= ref=model.py
  # bn without rstd (running variance 1); bn with the running mean as its bias (both 0);
  # ln without its gain (1)
  set -- 's/ \* rsqrt(bn_running_var\[i1\] + 1\.0e-05)//' \
         's/ + bn_bias\[i1\]/ + bn_running_mean[i1]/' \
         's/ \* ln_weight\[i3\]//' ;;
jax_norm) flag=--jax ref=fn.py
  "$SOLAR_PYTHON" -c 'import jax' 2>/dev/null || { echo "SKIP: no jax at SOLAR_PYTHON=$SOLAR_PYTHON"; exit 77; }
  # the gain g (jnp.ones) dropped; the bias b (jnp.zeros) dropped
  set -- 's/(mul\[i0, i1\]) \* (g\[i1\])/(mul[i0, i1])/' \
         's/mul_2\[i0, i1\] + b\[i1\]/mul_2[i0, i1]/' ;;
*) echo "usage: run.sh SOLAR norm_eval|jax_norm|derived_heads|full_sizes|bn_training"; exit 2 ;;
esac
"$solar" translate $flag "$here/$name.py" -o "$tmp/$name.air" --keep "$tmp/keep" || fail "solar translate"
for m in "$@"; do
  sed "$m" "$tmp/keep/validate.air" >"$tmp/wrong.air"
  cmp -s "$tmp/keep/validate.air" "$tmp/wrong.air" && fail "the mutation '$m' changed nothing"
  "$solar" validate "$tmp/wrong.air" --ref "$tmp/keep/$ref" --backend cpu >"$tmp/out" 2>&1
  rc=$?
  if [ "$rc" != 1 ]; then cat "$tmp/out"; fail "mutation '$m': validate exited $rc, expected 1 (FAIL)"; fi
  echo "mutation '$m': $(grep -m 1 'FAIL:' "$tmp/out" | sed 's/  */ /g')"
done
echo PASS
