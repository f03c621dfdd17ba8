#!/bin/sh
# A kernel with no work (bound 0) has no limiting resource in solar report either: '-' in the
# Markdown kernel table, null in the JSON (analyze: tests/golden/analyze/no_work*).
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
printf '{"defaults": {"device": "h100-sxm"}, "entries": [{"air": "%s", "measured": "1us"}]}\n' \
  "$root/tests/golden/analyze/no_work.air" >"$t/m.json"
"$solar" report "$t/m.json" --json "$t/r.json" >"$t/r.md" 2>"$t/err" || { echo "report: exit $?"; cat "$t/err"; exit 1; }
grep -qx '| nothing | 0 | 0 B | - | 0 s | - |' "$t/r.md" || { echo "report md row:"; grep nothing "$t/r.md"; fail=1; }
python3 - "$t/r.json" <<'PY' || fail=1
import json, sys
k = {x["name"]: x for x in json.load(open(sys.argv[1]))["entries"][0]["kernels"]}
assert k["nothing"]["limited_by"] is None, k["nothing"]
assert k["copy"]["limited_by"] == "l2", k["copy"]
PY
exit $fail
