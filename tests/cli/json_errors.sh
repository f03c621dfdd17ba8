#!/bin/sh
# Where a command's output is JSON (--json, --format json), its messages on stderr are JSON
# too, one object a line (diag/diag.c, solar_diag_set_json): a located AIR error with its file,
# line and column, a tool error with its message alone, a warning; the same runs without
# --json print the text form.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
cd "$t" || exit 1
cp "$root/tests/golden/check/const_uses_param.air" bad.air # three errors and a note, located

# a located AIR error
"$solar" count --json bad.air >out 2>err; rc=$?
[ "$rc" = 1 ] || no "count --json bad.air: exit $rc, expected 1"
[ -s out ] && no "count --json bad.air wrote stdout: $(cat out)"
python3 - err <<'PY' || no "count --json bad.air: stderr: $(cat err)"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines, "no message"
objs = [json.loads(l) for l in lines]
e = objs[0]
assert e["severity"] == "error" and e["file"] == "bad.air", e
assert (e["line"], e["col"]) == (3, 11), e
assert e["message"].startswith("a const cannot use param 'N'"), e
assert [o["severity"] for o in objs] == ["error", "error", "error", "note"], objs
assert (objs[3]["line"], objs[3]["col"], objs[3]["message"]) == (3, 36, "'Q' is defined here")
assert all(set(o) <= {"severity", "file", "line", "col", "path", "message"} for o in objs), objs
PY
"$solar" count bad.air >out 2>err
grep -q '^bad.air:3:11: error: a const cannot use' err || no "count bad.air: no text diagnostic: $(cat err)"
grep -q '\^' err || no "count bad.air: no caret line: $(cat err)"

# a tool error of no usage: a file that does not exist
"$solar" analyze --json --device h100-sxm missing.air >out 2>err; rc=$?
[ "$rc" = 2 ] || no "analyze --json missing.air: exit $rc, expected 2"
printf '%s\n' '{"severity":"error","message":"missing.air: No such file or directory"}' >want
cmp -s want err || no "analyze --json missing.air: stderr: $(cat err)"
"$solar" analyze --format json --device h100-sxm missing.air >out 2>err
cmp -s want err || no "analyze --format json missing.air: stderr: $(cat err)"
"$solar" analyze --device h100-sxm missing.air >out 2>err
grep -qx 'solar: missing.air: No such file or directory' err ||
  no "analyze missing.air: stderr: $(cat err)"

# a warning, and stdout still the JSON result
cp "$root/tests/golden/analyze/capacity.air" .
"$solar" analyze --json --device "$root/devices/a100-sxm-80gb.json" capacity.air >out 2>err; rc=$?
[ "$rc" = 0 ] || no "analyze --json capacity.air: exit $rc"
python3 - out err <<'PY' || no "analyze --json capacity.air: stderr: $(cat err)"
import json, sys
json.load(open(sys.argv[1]))
(w,) = [json.loads(l) for l in open(sys.argv[2]).read().splitlines()]
assert w["severity"] == "warning" and "exceeds the DRAM capacity" in w["message"], w
assert w["file"] == "capacity.air" and w["message"].startswith("the program's memory"), w
PY
# a warning about a whole file names it: the descriptor of measured ceilings
"$solar" analyze --json --device h200-measured capacity.air >out 2>err
python3 - err <<'PY' || no "analyze --json --device h200-measured: stderr: $(cat err)"
import json, sys
ws = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert any(w["severity"] == "warning" and w.get("file") == "h200-measured" and
           "figures are measured ceilings" in w["message"] for w in ws), ws
PY
"$solar" analyze --device h200-measured capacity.air >out 2>err
grep -q '^h200-measured: warning: [0-9]* figures are measured ceilings, not peaks' err ||
  no "analyze --device h200-measured: stderr: $(cat err)"
exit $fail
