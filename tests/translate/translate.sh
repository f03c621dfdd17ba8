#!/bin/sh
# The tests of `solar translate` itself (docs/translate.md, "Tests"):
#   translate.sh SOLAR ROOT example NAME      examples/NAME.py: translate (validated: PASS),
#                                             then solar analyze the result
#   translate.sh SOLAR ROOT golden FILE.py    translate (validated), and the AIR must equal
#                                             FILE.air beside it (comments aside); UPDATE=1
#                                             rewrites FILE.air
#   translate.sh SOLAR ROOT error FILE        translate must fail with exactly FILE's .err on
#                                             stderr (run in its folder), its exit status on
#                                             the .err's first line, no output file
# Exit 77 (ctest SKIP) when solar finds no Python with PyTorch (no build/venv, no SOLAR_PYTHON):
# the C tool and `make demo` do not need it, and `make test` builds the venv first.
solar=$1 root=$2 kind=$3 arg=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/solar-translate-XXXXXX")
trap 'rm -rf "$work"' EXIT
# Skipped only when solar finds no Python with PyTorch (its exit 2 and message), never when
# a translation fails.
skip_if_no_torch() {   # skip_if_no_torch RC STDERR-FILE
  if [ "$1" = 2 ] && grep -q "PyTorch" "$2"; then
    echo "SKIP: $(cat "$2")"
    exit 77
  fi
}
translated() {   # translated MODEL.py OUT.air: translate, which must validate
  "$solar" translate "$1" -o "$2" >"$work/out" 2>"$work/err"
  rc=$?
  skip_if_no_torch $rc "$work/err"
  cat "$work/out" "$work/err"
  [ $rc -eq 0 ] || { echo "FAIL: solar translate exited $rc"; exit 1; }
  grep -q "validated: PASS" "$work/out" || { echo "FAIL: no 'validated: PASS'"; exit 1; }
}
case $kind in
example)
  translated "$root/examples/$arg.py" "$work/$arg.air"
  "$solar" analyze "$work/$arg.air" --device "$root/devices/h100-sxm.json" >"$work/analyze" 2>&1 ||
    { cat "$work/analyze"; echo "FAIL: solar analyze of the translation"; exit 1; }
  tail -n 3 "$work/analyze"
  ;;
golden)
  want=${arg%.py}.air
  translated "$arg" "$work/got.air"
  if [ "${UPDATE:-}" = 1 ]; then cp "$work/got.air" "$want"; echo "updated $want"; exit 0; fi
  grep -v '^#' "$want" >"$work/want.body"
  grep -v '^#' "$work/got.air" >"$work/got.body"
  diff -u "$work/want.body" "$work/got.body" || { echo "FAIL: the AIR differs from $want"; exit 1; }
  ;;
error)
  dir=$(dirname "$arg") name=$(basename "$arg")
  exp=$dir/${name%.*}.err
  want_rc=$(head -n 1 "$exp")
  (cd "$dir" && "$solar" translate "$name" -o "$work/out.air") >"$work/out" 2>"$work/err"
  rc=$?
  skip_if_no_torch $rc "$work/err"
  tail -n +2 "$exp" >"$work/want"
  echo "exit $rc (want $want_rc)"
  diff -u "$work/want" "$work/err" || { echo "FAIL: stderr differs from $exp"; exit 1; }
  [ "$rc" = "$want_rc" ] || { echo "FAIL: exit status"; exit 1; }
  [ -e "$work/out.air" ] && { echo "FAIL: an output file was written"; exit 1; }
  grep -q Traceback "$work/out" "$work/err" && { echo "FAIL: a Python traceback"; exit 1; }
  ;;
*) echo "usage: translate.sh SOLAR ROOT example|golden|error ARG"; exit 2 ;;
esac
exit 0
