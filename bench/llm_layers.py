"""Per-layer sums of a translated language model's kernel bounds (docs/llm.md, "Per layer").

    python3 bench/llm_layers.py ANALYZE.json

ANALYZE.json is `solar analyze X.air --device D --json` of a `solar translate --hf`
translation, whose kernel names carry the module path (lm_model_layers_12_mlp_...).  Prints,
for each decoder layer, the final norm and head, and the rest ("other": the embedding, the
rotary tables, the copies of the new cache entries): the kernels, the sum of
their unfused bounds (each kernel as transformers launches it; the sum over all groups is the
unfused bound less the shared-L2 allowance, docs/bounds.md) and the DRAM bytes they move.
"""
import json
import re
import sys


def main(path):
    r = json.load(open(path))
    groups = {}
    for k in r["kernels"]:
        m = re.match(r"lm_model_layers_(\d+)_", k["name"])
        g = f"layer {int(m.group(1)):3d}" if m else ("head" if "lm_head" in k["name"] or "model_norm" in k["name"]
                                                     else "other")
        e = groups.setdefault(g, [0, 0.0, 0])
        e[0] += 1
        e[1] += k["time_s"]
        e[2] += k["bytes"].get("dram", 0)
    order = sorted(groups, key=lambda g: (g != "other", g == "head", g))
    for g in order:
        n, t, b = groups[g]
        print(f"{g:24s} {n:5d} kernels  {t * 1e3:9.3f} ms  {b / 1e9:8.3f} GB")
    total = sum(v[1] for v in groups.values())
    print(f"{'sum':24s} {sum(v[0] for v in groups.values()):5d} kernels  {total * 1e3:9.3f} ms; "
          f"unfused bound {r['unfused']['time_s'] * 1e3:.3f} ms, fused {r['fused']['time_s'] * 1e3:.3f} ms")


if __name__ == "__main__":
    main(sys.argv[1])
