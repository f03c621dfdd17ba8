#!/bin/sh
# Runs one end-to-end case of `solar validate` on the CPU (docs/validate.md):
#   run.sh SOLAR ROOT FILE.air [ARG ...]
# Lines in FILE.air steer it, as in tests/golden:
#   # ref: PATH        the model, relative to ROOT (default: FILE.py beside FILE.air)
#   # args: ...        arguments for solar (the ARGs given here come after them)
#   # exit: N          the expected exit status (default 0: every output matches)
#   # expect: TEXT     TEXT must appear in solar's output (stdout and stderr); repeatable
#   # reject: TEXT     TEXT must not appear in it; repeatable
# With exit 0 the last line must be PASS, with exit 1 FAIL.  solar runs in ROOT.
# Keeps the working files in a temporary folder, removed afterwards.
solar=$1 root=$2 air=$3
shift 3
case $air in /*) ;; *) air=$root/$air ;; esac
ref=$(sed -n 's/^# ref: //p' "$air" | head -n 1)
if [ -n "$ref" ]; then ref=$root/$ref; else ref=${air%.air}.py; fi
args=$(sed -n 's/^# args: //p' "$air" | head -n 1)
want=$(sed -n 's/^# exit: //p' "$air" | head -n 1)
want=${want:-0}
# a case that stops its harness (--timeout) runs it itself: a served request is not a child
# solar can stop, and would hold the output pipes open
case " $args $* " in *" --timeout "*) unset SOLAR_HARNESS_SERVER ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/solar-validate-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
out=$work/output
start=$(date +%s)
# shellcheck disable=SC2086  # args is a word list on purpose
(cd "$root" && "$solar" validate "$air" --ref "$ref" --backend cpu --keep "$work/dir" $args "$@") \
  >"$out" 2>&1
rc=$?
echo "solar validate $(basename "$air") $args $*: exit $rc in $(($(date +%s) - start)) s"
fail=0
if [ "$rc" != "$want" ]; then echo "exit status $rc, expected $want"; fail=1; fi
last=$(grep -v '^$' "$out" | tail -n 1)
if [ "$want" = 0 ] && [ "$last" != PASS ]; then echo "the last line is not PASS"; fail=1; fi
if [ "$want" = 1 ] && [ "$last" != FAIL ]; then echo "the last line is not FAIL"; fail=1; fi
sed -n 's/^# expect: //p' "$air" >"$work/expect"
while IFS= read -r needle; do
  if ! grep -qF -- "$needle" "$out"; then echo "missing from the output: $needle"; fail=1; fi
done <"$work/expect"
sed -n 's/^# reject: //p' "$air" >"$work/reject"
while IFS= read -r needle; do
  if grep -qF -- "$needle" "$out"; then echo "in the output, but must not be: $needle"; fail=1; fi
done <"$work/reject"
if [ "$fail" != 0 ]; then
  echo "--- output:"; cat "$out"
  for f in "$work"/dir/ref.json; do [ -f "$f" ] && { echo "--- $f:"; cat "$f"; }; done
  exit 1
fi
cat "$out"
exit 0
