#!/bin/sh
# Runs one case of the translation corpus (tests/translate/README.md):
#   run.sh SOLAR ROOT model FILE.py    translate -> check -> validate on the CPU (-> golden)
#   run.sh SOLAR ROOT jax FILE.py      the same with `translate --jax`
#   run.sh SOLAR ROOT bad FILE         translate must fail: the exit code and FILE:LINE of
#                                      bad/NAME.expect, no Python traceback, no output file
# A model runs as:
#   solar translate FILE.py [--no-validate] -o WORK/NAME.air   exit 0, an AIR file
#   solar check WORK/NAME.air                           exit 0
#   solar validate WORK/NAME.air --ref FILE.py --backend cpu -D P=V ...   exit 0, last line PASS
# where the -D lines shrink every param of the AIR that is a module-level constant of FILE.py
# by census.py's rule (census.py --defines).  A line `# corpus: translate-only` in FILE.py skips
# the validation (the 32-layer decoder: meta tensors only).  When golden/NAME.air (hand-written)
# exists, `solar count` of the translation must give the golden's op totals and compulsory DRAM
# traffic (program as one kernel, at the model's own sizes): naming-free, but exact.
# The Python that runs PyTorch/JAX is $SOLAR_PYTHON (validate's harness reads it too).
# Until `solar translate` exists the case is skipped (exit 77), saying so.
solar=$1 root=$2 kind=$3 file=$4
case $file in /*) ;; *) file=$root/$file ;; esac
dir=$(dirname "$file") name=$(basename "$file")
base=${name%.*}
py=${SOLAR_PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/solar-translate-test-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Skip (77) only when the translate command is absent, never when it fails.
"$solar" translate --help >"$work/help" 2>&1
if grep -qi "unknown command" "$work/help"; then
  echo "solar has no 'translate' command yet: skipped"
  exit 77
fi

fail=0
say() { echo "$*"; }

if [ "$kind" = bad ]; then
  expect=$dir/$base.expect
  want_rc=$(cut -d' ' -f1 "$expect") want_at=$(cut -d' ' -f2 "$expect")
  # Run in the file's folder with the bare name, so the message names NAME:LINE.
  (cd "$dir" && "$solar" translate "$name" -o "$work/out.air") >"$work/stdout" 2>"$work/stderr"
  rc=$?
  say "solar translate bad/$name: exit $rc (want $want_rc, naming $want_at)"
  [ "$rc" = "$want_rc" ] || { say "exit status $rc, expected $want_rc"; fail=1; }
  # NAME:LINE, then not another digit (line 1 is not line 16)
  grep -qE -- "(^|[^A-Za-z0-9_.])$want_at([^0-9]|\$)" "$work/stderr" ||
    { say "stderr does not name $want_at"; fail=1; }
  if grep -q "Traceback" "$work/stdout" "$work/stderr"; then
    say "a Python traceback was printed"; fail=1
  fi
  [ -e "$work/out.air" ] && { say "an output file was written despite the error"; fail=1; }
  if [ "$fail" != 0 ]; then
    say "--- stdout:"; cat "$work/stdout"; say "--- stderr:"; cat "$work/stderr"
  fi
  exit $fail
fi

flag=
[ "$kind" = jax ] && flag=--jax
# The driver validates on its own (below, at census.py's sizes), so a translator that
# validates by default is asked not to: one validation per case, not two.
grep -q -- "--no-validate" "$work/help" && flag="$flag --no-validate"
air=$work/$base.air
step() {   # step LABEL COMMAND...: runs it, keeps its output, fails the case on non-zero exit
  label=$1; shift
  "$@" >"$work/$label.out" 2>&1
  rc=$?
  say "$label: exit $rc"
  if [ "$rc" != 0 ]; then cat "$work/$label.out"; exit 1; fi
}
# shellcheck disable=SC2086  # flag is a word list on purpose
step translate "$solar" translate "$file" $flag -o "$air"
[ -s "$air" ] || { say "translate wrote no AIR"; exit 1; }
step check "$solar" check "$air"

if grep -q "^# corpus: translate-only" "$file"; then
  say "validate: skipped (# corpus: translate-only)"
else
  defines=$("$py" "$root/tests/translate/census.py" --defines "$file" "$air") || {
    say "census.py --defines failed"; exit 1; }
  say "validate at $defines"
  # shellcheck disable=SC2086  # defines is a word list on purpose
  step validate "$solar" validate "$air" --ref "$file" --backend cpu $defines
  last=$(grep -v '^$' "$work/validate.out" | tail -n 1)
  [ "$last" = PASS ] || { say "the last line of validate is '$last', not PASS"; cat "$work/validate.out"; exit 1; }
fi

golden=$root/tests/translate/golden/$base.air
if [ -f "$golden" ]; then
  # The golden is hand-written AIR of the same model (validated against it by the
  # translate/golden/NAME test).  Names and loop order may differ; the work may not: the
  # program-as-one-kernel op totals and compulsory DRAM traffic of `solar count` at the
  # model's own sizes must be equal.
  work_of() {
    "$solar" count "$1" | sed -n '/^program as one kernel/,$p' |
      sed -n 's/^  ops: /ops: /p; s/^  bytes: .*DRAM: /DRAM: /p'
  }
  work_of "$golden" >"$work/want.count" 2>&1
  work_of "$air" >"$work/got.count" 2>&1
  if [ -s "$work/want.count" ] && diff -u "$work/want.count" "$work/got.count"; then
    say "golden: same work as tests/translate/golden/$base.air ($(tr '\n' ' ' <"$work/got.count"))"
  else
    say "golden: the translation's work differs from tests/translate/golden/$base.air"; fail=1
  fi
fi
exit $fail
