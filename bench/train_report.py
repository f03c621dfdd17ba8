"""Training steps measured on a GPU against solar's bounds (docs/soundness.md, "Training steps").

    python3 bench/train_report.py MEASURED.json [MEASURED2.json ...] [--solar build/solar]
        [--device devices/h200-sxm.json] [--files DIR_OR_FILE ...]

MEASURED.json is what `bench/soundness.py --train OPTIMIZER [--loss L] OUT.json FILE.py ...`
wrote on the GPU (its "optimizer", "loss" and, per model, the training step's cold and warm
minimum).  For every model it runs `solar translate FILE --train --loss L --optimizer
OPTIMIZER --no-validate` at the file's
own sizes (the translation's validation at small sizes is tests/translate/train and the
KernelBench scan's business), then `solar analyze --json` twice: `--l2 cold` against the cold
minimum (the L2 flushed before each run) and the default warm bounds against the warm minimum.
The unfused bound is compared with eager (the kernels as written), the fused and cache-aware
bounds too.  A violation is a bound above a measured minimum; the script prints a Markdown
table and exits 1 on any.  --files names where the model files are (their stems are the keys
of MEASURED.json): folders are searched, files taken as they are.
"""
import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent


def find(stem, places):
    for p in places:
        p = pathlib.Path(p)
        if p.is_file() and p.stem == stem:
            return p
        if p.is_dir():
            hit = sorted(p.rglob(f"{stem}.py"))
            if hit:
                return hit[0]
    return None


def bounds(solar, air, device, l2):
    p = subprocess.run([solar, "analyze", str(air), "--device", device, "--json", "--l2", l2],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip().splitlines()[-1] if p.stderr.strip() else "analyze failed")
    j = json.loads(p.stdout)
    g = {x["name"]: x["share"] for x in j.get("groups", [])}
    return {k: j[k]["time_s"] for k in ("unfused", "cache_aware", "fused")}, g, j["memory"]


def fmt(t):
    return f"{t * 1e3:.3g} ms" if t >= 1e-3 else f"{t * 1e6:.3g} us"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("measured", nargs="+")
    ap.add_argument("--solar", default=str(ROOT / "build" / "solar"))
    ap.add_argument("--device", default="devices/h200-sxm.json")
    ap.add_argument("--files", nargs="*", default=[str(ROOT / "examples"), str(ROOT / "tests")])
    a = ap.parse_args()
    rows, violations = [], 0
    print("| model | optimizer | measured (cold min) | unfused | fused | measured / unfused | "
          "backward share | memory least / as written | holds |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for m in a.measured:
            data = json.loads(pathlib.Path(m).read_text())
            opt, loss = data["optimizer"], data.get("loss", "sum")
            for stem, entry in data["steps"].items():
                if "train_step" not in entry:
                    print(f"| {stem} | {opt} | {entry.get('error', '?')[:60]} | | | | | | - |")
                    continue
                f = find(stem, a.files)
                if f is None:
                    print(f"| {stem} | {opt} | (model file not found) | | | | | | - |")
                    continue
                air = pathlib.Path(tmp) / f"{stem}_{opt}.air"
                t = subprocess.run([a.solar, "translate", str(f), "--train", "--loss", loss,
                                    "--optimizer", opt, "--no-validate", "-o", str(air)],
                                   capture_output=True, text=True)
                if t.returncode != 0:
                    err = (t.stderr.strip().splitlines() or ["?"])[-1]
                    print(f"| {stem} | {opt} | (not translated: {err[:80]}) | | | | | | - |")
                    continue
                cold, groups, mem = bounds(a.solar, air, a.device, "cold")
                warm, _, _ = bounds(a.solar, air, a.device, "warm")
                step = entry["train_step"]
                ok = all(cold[k] <= step["min_s"] for k in cold) and \
                    all(warm[k] <= step["warm"]["min_s"] for k in warm)
                violations += not ok
                print(f"| {stem} | {opt} | {fmt(step['min_s'])} | {fmt(cold['unfused'])} | "
                      f"{fmt(cold['fused'])} | {step['min_s'] / cold['unfused']:.3g}x | "
                      f"{100 * groups.get('backward', 0):.0f}% | "
                      f"{mem['least_bytes'] / 1e9:.3g} / {mem['as_written_bytes'] / 1e9:.3g} GB | "
                      f"{'yes' if ok else '**NO**'} |")
                rows.append(stem)
    print(f"\n{len(rows)} steps compared, {violations} violations "
          f"(a bound above the measured minimum, cold against --l2 cold, warm against warm).")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
