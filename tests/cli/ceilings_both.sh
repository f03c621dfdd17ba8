#!/bin/sh
# analyze --ceilings both (docs/bounds.md, "Fidelity levels") is two jobs: its bound must be
# the bound of the descriptor's base (the peaks) and its estimate the --ceilings measured
# result, number for number, per bound and per kernel.
#   ceilings_both.sh SOLAR ROOT
solar=$1 root=$2
cd "$root" || exit 1
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
for air in examples/mlp_block.air examples/attention_causal.air examples/softmax.air; do
  "$solar" analyze "$air" --device devices/h200-measured.json --ceilings both --json >"$t/both" &&
  "$solar" analyze "$air" --device devices/h200-sxm.json --json >"$t/bound" &&
  "$solar" analyze "$air" --device devices/h200-measured.json --ceilings measured --json >"$t/est" ||
    { echo "$air: solar analyze failed"; fail=1; continue; }
  python3 - "$t/both" "$t/bound" "$t/est" "$air" <<'PY' || fail=1
import json, sys
both, bound, est = (json.load(open(f)) for f in sys.argv[1:4])
bad = []
def same(a, b, what):
    if a["time_s"] != b["time_s"] or a["limited_by"] != b["limited_by"]:
        bad.append(f"{what}: {a['time_s']} {a['limited_by']} vs {b['time_s']} {b['limited_by']}")
for k in ("unfused", "fused", "cache_aware"):
    same(both[k], bound[k], "bound " + k)
    same(both["estimate"][k], est[k], "estimate " + k)
for a, b in zip(both["kernels"], bound["kernels"]):
    same(a, b, "bound kernel " + a["name"])
for a, b in zip(both["estimate"]["kernels"], est["kernels"]):
    same(a, b, "estimate kernel " + a["name"])
if both["ceilings"] != "both" or both["device"]["file"] != "devices/h200-sxm.json":
    bad.append(f"ceilings {both['ceilings']}, device {both['device']}")
for line in bad:
    print(sys.argv[4] + ": " + line)
sys.exit(1 if bad else 0)
PY
done
exit $fail
