#!/bin/sh
# The one driver of the tests of `solar translate` (tests/translate/README.md,
# docs/translate.md "Tests").  PyTorch is imported a few times per run, not per case:
#   run.sh setup SOLAR ROOT WORK       finds the Python (SOLAR_PYTHON: build/venv/bin/python or
#                                      the configured one), which must have torch >= 2.5, else
#                                      writes WORK/skip (every case then exits 77, saying why);
#                                      starts validate/harness.py's server (WORK/harness.sock),
#                                      which runs every `harness.py run` of the cases' validations
#   run.sh batch SOLAR ROOT WORK LIST  `solar translate --batch-list LIST WORK/out`: every case of LIST
#                                      (lines `NAME DIR FILE`) translated in one process,
#                                      --no-validate, each one's exit status, stdout and stderr
#                                      kept in WORK/out/NAME.{rc,out,err}, its AIR in NAME.air
#   run.sh cleanup SOLAR ROOT WORK     stops the harness server
#   run.sh case SOLAR ROOT WORK KIND NAME FILE   checks one case from the batch's results:
#     model    exit 0 and an AIR; solar check; solar validate --backend cpu of the batch's
#              NAME.v/ (the validation solar translate runs: the model translated again at the
#              small sizes validate.pick_sizes() picks), last line PASS (skipped, saying so, for
#              `# corpus: translate-only`); when golden/NAME.air exists, the same op totals and
#              compulsory DRAM traffic as it (at full size)
#     decoder  tests/translate/decoder/NAME.py: translate and check (no validation: 7 B params)
#     example  a model, then `solar analyze` of the translation
#     golden   a model, and the AIR (comments aside) equal to FILE's .air; UPDATE=1 rewrites it
#     bad      FILE's .expect `EXIT FILE:LINE`: that exit status, FILE:LINE on stderr
#     handwritten  tests/validate/run.sh of the hand-written golden FILE (golden/NAME.air)
#     output   -o naming FILE itself is refused (exit 2, FILE unchanged); OUT.air is renamed
#              into place (a hard link to the old OUT.air keeps the old contents)
#     error    FILE's .err: the exit status on its first line, then exactly that stderr
#              bad and error: no Python traceback, no output file
solar=$1 root=$2 work=$3 action=$4
py=${SOLAR_PYTHON:?run.sh needs SOLAR_PYTHON}
sock=$work/harness.sock
case $action in
setup)
  rm -rf "$work" && mkdir -p "$work/out" || exit 1
  if ! ver=$("$py" -c 'import torch, sys; v = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2]); print(torch.__version__); sys.exit(0 if v >= (2, 5) else 3)' 2>"$work/py.err"); then
    echo "no PyTorch >= 2.5 at SOLAR_PYTHON=$py (${ver:-$(tail -n 1 "$work/py.err")}): run \`make venv\` or set SOLAR_PYTHON, then configure again" >"$work/skip"
    cat "$work/skip"; exit 0
  fi
  echo "PyTorch $ver at $py"
  # the server ends by itself after 10 idle minutes, should cleanup never run
  nohup "$py" "$root/validate/harness.py" serve "$sock" 600 >"$work/harness.log" 2>&1 &
  echo $! >"$work/harness.pid"
  i=0
  while [ ! -S "$sock" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done
  [ -S "$sock" ] || { echo "the harness server did not start:"; cat "$work/harness.log"; exit 1; }
  exit 0 ;;
batch)
  [ -f "$work/skip" ] && { cat "$work/skip"; exit 0; }
  "$solar" translate --batch-list "$5" "$work/out"; exit $? ;;
cleanup)
  [ -f "$work/harness.pid" ] && kill "$(cat "$work/harness.pid")" 2>/dev/null
  exit 0 ;;
case) ;;
*) echo "usage: run.sh SOLAR ROOT WORK setup|batch|cleanup|case ..."; exit 2 ;;
esac

kind=$5 name=$6 file=$7
if [ -f "$work/skip" ]; then echo "SKIP: $(cat "$work/skip")"; exit 77; fi
# a hand-written golden/NAME.air against its model: tests/validate/run.sh, through the server
[ "$kind" = handwritten ] && SOLAR_HARNESS_SERVER="$sock" exec sh "$root/tests/validate/run.sh" "$solar" "$root" "$file"
if [ "$kind" = output ]; then   # outputs are never lost or half-written (FILE: a small model)
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/solar-translate-test-XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  cp "$file" "$tmp/m.py"
  "$solar" translate "$tmp/m.py" --no-validate -o "$tmp/m.py" 2>"$tmp/err"
  rc=$?; cat "$tmp/err"
  [ "$rc" = 2 ] && cmp -s "$file" "$tmp/m.py" && grep -q "m.py: error: -o names the model" "$tmp/err" ||
    { echo "FAIL: -o naming the model file: exit $rc (want 2), the model must stay unchanged"; exit 1; }
  # OUT.air is renamed into place: a second name of the old file keeps the old contents
  echo "old" >"$tmp/keep.air" && ln "$tmp/keep.air" "$tmp/out.air"
  "$solar" translate "$tmp/m.py" --no-validate -o "$tmp/out.air" || { echo "FAIL: translate"; exit 1; }
  [ "$(cat "$tmp/keep.air")" = old ] || { echo "FAIL: OUT.air was rewritten in place, not renamed into place"; exit 1; }
  grep -q "^kernel" "$tmp/out.air" || { echo "FAIL: no AIR in out.air"; exit 1; }
  [ -z "$(find "$tmp" -name '*.tmp')" ] || { echo "FAIL: a temporary file was left"; exit 1; }
  echo PASS; exit 0
fi
res=$work/out/$name
[ -f "$res.rc" ] || { echo "FAIL: the batch translation left no result for $name ($res.rc)"; exit 1; }
rc=$(cut -d' ' -f1 "$res.rc")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/solar-translate-test-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export SOLAR_HARNESS_SERVER="$sock"
dir=$(dirname "$file") base=$(basename "$file"); base=${base%.*}
echo "solar translate $file: exit $rc (CPU $(cut -d' ' -f2 "$res.rc") s in the batch)"
cat "$res.out" "$res.err"
fail() { echo "FAIL: $*"; exit 1; }

if [ "$kind" = bad ] || [ "$kind" = error ]; then
  if [ "$kind" = bad ]; then
    want_rc=$(cut -d' ' -f1 "$dir/$base.expect") want_at=$(cut -d' ' -f2 "$dir/$base.expect")
    [ "$rc" = "$want_rc" ] || fail "exit status $rc, expected $want_rc"
    # FILE:LINE, then not another digit (line 1 is not line 16)
    grep -qE -- "(^|[^A-Za-z0-9_.])$want_at([^0-9]|\$)" "$res.err" || fail "stderr does not name $want_at"
  else
    want_rc=$(head -n 1 "$dir/$base.err")
    tail -n +2 "$dir/$base.err" >"$tmp/want"
    diff -u "$tmp/want" "$res.err" || fail "stderr differs from $dir/$base.err"
    [ "$rc" = "$want_rc" ] || fail "exit status $rc, expected $want_rc"
  fi
  grep -q Traceback "$res.out" "$res.err" && fail "a Python traceback was printed"
  [ -e "$res.air" ] && fail "an output file was written despite the error"
  echo PASS; exit 0
fi

# tests/translate/unsupported.txt: `NAME WHAT REASON`, a model that cannot be translated
# yet; it must fail exactly so (exit 1, an `error:` line containing WHAT, e.g. the aten op),
# and passes saying why.  When the translator learns the op, this case fails until the line is removed.
known=$(grep "^$base " "$root/tests/translate/unsupported.txt" 2>/dev/null)
if { [ "$kind" = model ] || [ "$kind" = example ]; } && [ -n "$known" ]; then
  op=$(echo "$known" | cut -d' ' -f2)
  [ "$rc" = 1 ] && grep "error:" "$res.err" | grep -qF -- "$op" ||
    fail "unsupported.txt says '$known', but translate exited $rc without that error (remove the line if it translates now)"
  echo "EXPECTED FAILURE (tests/translate/unsupported.txt): $(echo "$known" | cut -d' ' -f3-)"
  echo PASS; exit 0
fi
[ "$rc" = 0 ] || fail "solar translate exited $rc"
[ -s "$res.air" ] || fail "translate wrote no AIR"
air=$tmp/$base.air
cp "$res.air" "$air"
"$solar" check "$air" >"$tmp/check" 2>&1 || { cat "$tmp/check"; fail "solar check"; }
if [ -d "$res.v" ]; then   # at the sizes solar translate validates at
  echo "solar validate --backend cpu at $(cat "$res.v/how")"
  "$solar" validate "$res.v/validate.air" --ref "$res.v/model.py" --backend cpu --keep "$tmp/keep" >"$tmp/validate" 2>&1
  vrc=$?
  cat "$tmp/validate"
  last=$(grep -v '^$' "$tmp/validate" | tail -n 1)
  [ "$vrc" = 0 ] && [ "$last" = PASS ] || fail "validate exited $vrc, last line '$last'"
  # the math flags the harness ran the model with are the ones translate read at export
  # (both as the model file sets them; on the CPU they apply to nothing)
  want=$(sed -n 's/^# Math mode at export: torch.backends.cuda.matmul.allow_tf32 = \([A-Za-z]*\), torch.backends.cudnn.allow_tf32 = \([A-Za-z]*\)\..*/\1 \2/p' "$res.air")
  got=$("$py" -c 'import json, sys; f = json.load(open(sys.argv[1]))["model_flags"]; print(f["matmul_allow_tf32"], f["cudnn_allow_tf32"])' "$tmp/keep/ref.json" 2>&1)
  echo "math flags: translate $want, harness $got"
  [ -n "$want" ] && [ "$want" = "$got" ] || fail "the harness's math flags ($got) are not translate's ($want)"
elif [ "$kind" = decoder ]; then
  echo "validate: skipped (the 32-layer decoder, 7 B parameters: translated on meta and checked)"
else
  grep -q "^# corpus: translate-only" "$file" || fail "the batch wrote no validation files ($res.v)"
  echo "validate: skipped (# corpus: translate-only: meta tensors only)"
fi

case $kind in
example)
  "$solar" analyze "$air" --device "$root/devices/h100-sxm.json" >"$tmp/analyze" 2>&1 ||
    { cat "$tmp/analyze"; fail "solar analyze of the translation"; }
  tail -n 3 "$tmp/analyze" ;;
golden)
  want=$dir/$base.air
  if [ "${UPDATE:-}" = 1 ]; then cp "$air" "$want"; echo "updated $want"; exit 0; fi
  grep -v '^#' "$want" >"$tmp/want.body"
  grep -v '^#' "$air" >"$tmp/got.body"
  diff -u "$tmp/want.body" "$tmp/got.body" || fail "the AIR differs from $want" ;;
esac

golden=$root/tests/translate/golden/$base.air
if [ "$kind" = model ] && [ -f "$golden" ]; then
  # Hand-written AIR of the same model (validated against it by translate/golden/NAME).  Names
  # and loop order may differ; the work may not: the program-as-one-kernel op totals and
  # compulsory DRAM traffic of `solar count` at the model's own sizes must be equal.
  work_of() {
    "$solar" count "$1" | sed -n '/^program as one kernel/,$p' |
      sed -n 's/^  ops: /ops: /p; s/^  bytes: .*DRAM: /DRAM: /p'
  }
  work_of "$golden" >"$tmp/want.count" 2>&1
  work_of "$air" >"$tmp/got.count" 2>&1
  if [ -s "$tmp/want.count" ] && diff -u "$tmp/want.count" "$tmp/got.count"; then
    echo "golden: same work as tests/translate/golden/$base.air ($(tr '\n' ' ' <"$tmp/got.count"))"
  else
    fail "the translation's work differs from tests/translate/golden/$base.air"
  fi
fi
echo PASS
exit 0
