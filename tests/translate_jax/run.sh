#!/bin/sh
# Tests of `solar translate --jax` and `--llm` (docs/translate.md).  One case:
#   run.sh SOLAR model FILE.py   translate --jax (validating): exit 0, validated: PASS
#   run.sh SOLAR golden FILE.py  translate --jax (validating) and diff with FILE.air; stderr empty,
#                                or holding the line of FILE.warn
#   run.sh SOLAR bad FILE.py     exit status and `FILE:LINE: error: ...` of FILE.expect, no traceback,
#                                no output file
#   run.sh SOLAR llm             the loop with tests/translate_jax/llm/fake_llm.py: wrong twice (a
#                                syntax error, a numeric mismatch), right the third time: exit 0 and
#                                a 3-line log; with --attempts 2: exit 1, the last AIR and log kept
# The Python is $SOLAR_PYTHON; without jax there the case is skipped (77).
solar=$1 kind=$2 file=$3
here=$(cd "$(dirname "$0")" && pwd)
py=${SOLAR_PYTHON:-python3}
"$py" -c "import jax, sympy" 2>/dev/null || { echo "no jax/sympy in $py: skipped"; exit 77; }
export SOLAR_PYTHON=$py
work=$(mktemp -d "${TMPDIR:-/tmp}/solar-jax-test-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; for f in "$work"/*.out "$work"/*.err; do [ -f "$f" ] && { echo "--- $f"; cat "$f"; }; done; exit 1; }
case $kind in
model)   # a corpus file (tests/translate/jax): translates, checks and validates
  name=$(basename "$file" .py)
  "$solar" translate --jax "$file" -o "$work/$name.air" >"$work/t.out" 2>"$work/t.err" || fail "translate exit $?"
  grep -q "validated: PASS" "$work/t.out" || fail "not validated"
  grep -q Traceback "$work/t.out" "$work/t.err" && fail "a traceback"
  echo "model $name: translated, validated" ;;
golden)   # `# corpus: translate-only`: --no-validate
  name=$(basename "$file" .py)
  only=$(grep -c "^# corpus: translate-only" "$file")
  "$solar" translate --jax "$file" -o "$work/$name.air" $([ "$only" = 0 ] || echo --no-validate) \
    >"$work/t.out" 2>"$work/t.err" || fail "translate exit $?"
  [ "$only" != 0 ] || grep -q "validated: PASS" "$work/t.out" || fail "not validated"
  diff -u "${file%.py}.air" "$work/$name.air" || fail "the translation differs from ${file%.py}.air"
  if [ -f "${file%.py}.warn" ]; then   # a warning translate must print
    grep -qF -- "$(cat "${file%.py}.warn")" "$work/t.err" || fail "stderr lacks $(cat "${file%.py}.warn")"
  elif [ -s "$work/t.err" ]; then fail "unexpected stderr"; fi
  echo "golden $name: same AIR, validated" ;;
bad)
  dir=$(dirname "$file") name=$(basename "$file")
  want_rc=$(cut -d' ' -f1 "${file%.py}.expect") want=$(cut -d' ' -f2- "${file%.py}.expect")
  (cd "$dir" && "$solar" translate --jax "$name" -o "$work/out.air") >"$work/t.out" 2>"$work/t.err"
  rc=$?
  [ "$rc" = "$want_rc" ] || fail "exit $rc, expected $want_rc"
  grep -qF -- "$want" "$work/t.err" || fail "stderr lacks '$want'"
  grep -q Traceback "$work/t.out" "$work/t.err" && fail "a traceback"
  [ -e "$work/out.air" ] && fail "an output file was written"
  echo "bad $name: exit $rc, '$want'" ;;
llm)
  llm="$py $here/llm/fake_llm.py $work/state"
  "$solar" translate "$here/llm/cummax.py" --llm "$llm" -o "$work/cm.air" --log "$work/cm.jsonl" \
    >"$work/t.out" 2>"$work/t.err" || fail "the loop exit $?"
  "$py" - "$work/cm.jsonl" <<'PY' || fail "the log"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["attempt"] for r in rows] == [1, 2, 3], rows
assert [r["verdict"] for r in rows] == ["check failed", "validation FAIL", "PASS"], [r["verdict"] for r in rows]
assert "error: unexpected" in rows[0]["check"]["diagnostics"], rows[0]["check"]
assert rows[1]["check"]["exit"] == 0 and rows[1]["validation"]["exit"] == 1, rows[1]
assert rows[2]["validation"]["verdict"] == "PASS" and rows[2]["validation"]["defines"] == {"ROWS": 12, "COLS": 10}
for r in rows:
    assert len(r["prompt_sha256"]) == 64 and r["prompt_len"] > 1000 and r["seconds"] >= 0 and r["response"]
PY
  grep -q "max(y\[i, j - 1\], x\[i, j\]);" "$work/cm.air" || fail "the AIR written is not the third answer"
  rm -f "$work/state"
  "$solar" translate "$here/llm/cummax.py" --llm "$llm" --attempts 2 -o "$work/cm2.air" \
    >"$work/t2.out" 2>"$work/t2.err"
  rc=$?
  [ "$rc" = 1 ] || fail "--attempts 2: exit $rc, expected 1"
  grep -q "no attempt of 2 validated" "$work/t2.err" || fail "--attempts 2: no message"
  [ "$(wc -l <"$work/cm2.llm.jsonl")" = 2 ] || fail "--attempts 2: the default log lacks 2 lines"
  grep -q "y\[i, j - 1\] + x\[i, j\]" "$work/cm2.air" || fail "--attempts 2: the last AIR is not kept"
  echo "llm: wrong, wrong, right: exit 0, 3 log lines; --attempts 2: exit 1, last AIR and log kept" ;;
*) echo "usage: run.sh SOLAR golden|bad FILE | llm"; exit 2 ;;
esac
