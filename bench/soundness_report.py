"""Compares measured times with solar's bounds and writes docs/soundness.md.

    python3 bench/soundness_report.py bench/results/soundness-h200-DATE.json [build/solar]

For every example and every measured path (eager PyTorch, and the best library path where
bench/soundness.py timed one) it runs `solar analyze --json` with devices/h200-sxm.json (with
`--math tf32` for paths that ran with TF32) and checks measured >= bound, per L2 protocol
(docs/bounds.md, rule "L2 state"): timings with the L2 flushed before each run against
`--l2 cold` bounds and against the default warm bounds (warm bounds hold for any protocol),
and timings without a flush (a path's "warm" entry, where the data has one) against warm
bounds.  It prints the median of measured / bound per mode.  The minimum over runs
is compared, not the median: the bound must hold for the fastest run.  The unfused bound is
compared only with code that runs the kernels as written (eager); fused code (SDPA flash) is
compared with the fused and cache-aware bounds.  Exits 1 on any violation.
"""
import json
import re
import statistics
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEVICE = "devices/h200-sxm.json"


def analyze(solar, name, math, l2="warm"):
    cmd = [solar, "analyze", f"examples/{name}.air", "--device", DEVICE, "--json", "--l2", l2]
    if math == "tf32":
        cmd += ["--math", "tf32"]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def us(s):
    return f"{s * 1e6:.1f} us"


def main():
    data = json.loads(pathlib.Path(sys.argv[1]).read_text())
    solar = sys.argv[2] if len(sys.argv) > 2 else str(ROOT / "build" / "solar")
    rows, violations = [], 0
    ratios = {}  # (timing protocol, bound mode, bound) -> measured / bound
    for name, paths in sorted(data["examples"].items()):
        for label, m in paths.items():
            if "min_s" not in m:
                rows.append(f"| {name} | {label} | not run: {m.get('error', '?')} | | | | | |")
                continue
            fused_code = label != "eager"
            runs = [("flushed", m, "cold"), ("flushed", m, "warm")]
            if "warm" in m:
                runs.append(("no flush", m["warm"], "warm"))
            for protocol, t_m, mode in runs:
                a = analyze(solar, name, m["math"], mode)
                cells = []
                for key in ("unfused", "cache_aware", "fused"):
                    t = a[key]["time_s"]
                    if key == "unfused" and fused_code:
                        cells.append("n/a (fused code)")
                        continue
                    ratio = t_m["min_s"] / t
                    ratios.setdefault((protocol, mode, key), []).append(ratio)
                    bad = ratio < 1
                    violations += bad
                    cells.append(f"{us(t)} ({ratio:.2f}x){' **VIOLATION**' if bad else ''}")
                rows.append(f"| {name} | {label} ({m['math']}) | {protocol} | {mode} | "
                            f"{us(t_m['min_s'])} | " + " | ".join(cells)
                            + f" | {a['fused']['limited_by']} |")
    summary = ["| timings | bounds | bound | ops | median measured / bound |", "|---|---|---|---|---|"]
    for (protocol, mode, key), r in sorted(ratios.items()):
        summary.append(f"| {protocol} | --l2 {mode} | {key} | {len(r)} | "
                       f"{statistics.median(r):.2f} |")
    # the date the timings were taken is in the data file's name: soundness-MACHINE-DATE.json
    found = re.search(r"(\d{4}-\d{2}-\d{2})", pathlib.Path(sys.argv[1]).name)
    taken = found.group(1) if found else "(date not in the file name)"
    head = f"""# Soundness: measured times against solar's bounds

The promise: no measured time is below a bound. Each row is one example timed at its default
size on the machine below; the cells give the bound and measured / bound (must be >= 1).

- Device: {data['device']}, PyTorch {data['torch']}, CUDA {data['cuda']}; descriptor `{DEVICE}`
  (datasheet figures).
- Method (bench/soundness.py): {data['warmup']} warm-ups, {data['runs']} timed runs with CUDA
  events, the L2 flushed before each run ({data['l2_flush_bytes'] >> 20} MiB overwritten); the
  minimum over runs is compared. Math flags: matmul TF32 off, cuDNN TF32 on (PyTorch defaults);
  the `cublas_tf32` path turns matmul TF32 on and is compared with `--math tf32` bounds.
- Clocks were not locked (the lease forbids changing settings); every peak is taken at the
  1980 MHz maximum SM clock (docs/bounds.md, rule "clock domains": NVIDIA's tensor figures assume
  1830 MHz), which no run can exceed.
- Date and command: {taken}, `python3 bench/soundness.py OUT.json` on the H200 (since 2026-12-01
  through `PARTS=soundness sh bench/gpu_evidence.sh OUT`), then
  `python3 bench/soundness_report.py {sys.argv[1]}` here.

- L2 protocols (docs/bounds.md, rule "L2 state"): timings with the L2 flushed are compared
  with `--l2 cold` bounds and with the default warm bounds (sound for any protocol); timings
  without a flush, where the data has them, with warm bounds. Data without warm timings
  (2026-11-29) gives the flushed rows only.

**Violations: {violations}.**

Median of measured / bound (lower is tighter; the "flushed, --l2 warm" rows are what the
bounds gave before cold mode existed):

""" + "\n".join(summary) + """

| example | path | timings | bounds | measured (min) | unfused | cache-aware | fused | fused limited by |
|---|---|---|---|---|---|---|---|---|
"""
    (ROOT / "docs" / "soundness.md").write_text(head + "\n".join(rows) + "\n")
    print(f"{len(rows)} rows, {violations} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
