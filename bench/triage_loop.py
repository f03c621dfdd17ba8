#!/usr/bin/env python3
"""A kernel-search loop on the GPU with `solar triage` as its surrogate (docs/triage.md#loop).

    bench/triage_loop.py bench/pools/gemm --history H.jsonl [--budget 25%] [--per-round 1]
        [--learn-from bench/results/pools-h200-2026-12-01.jsonl]
        [--solar build/solar] [--device devices/h200-sxm.json] [--device-name h200-sxm]
        [--warmup 5] [--runs 100]

Propose (the pool's candidates), triage (`solar triage POOL --budget K --format json`),
measure the planned ones on the GPU (each checked against the reference's output with the
pool's tolerance, timed with validate/harness.py's time_torch_cuda: CUDA events, the L2
flushed before every run, so the history says "l2": "cold"), record each with
`solar triage --record` (a wrong one with --wrong), and repeat until the plan is empty or the
budget is spent.  The reference is measured first if the history lacks it (not counted in the
budget).  Prints one line per measurement and, at the end, the final triage table.
Needs a CUDA GPU, PyTorch (and Triton for the Triton candidates); run by the lead on the H200.
"""
import argparse
import json
import math
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validate"))
sys.path.insert(0, str(ROOT / "bench" / "pools"))


def solar(args, *a, json_out=False):
    p = subprocess.run([args.solar, *a], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"triage_loop: {' '.join([args.solar, *a])}: exit {p.returncode}: {p.stderr}")
    return json.loads(p.stdout) if json_out else p.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pool")
    ap.add_argument("--history", required=True)
    ap.add_argument("--budget", default="25%")
    ap.add_argument("--per-round", type=int, default=1)
    ap.add_argument("--solar", default=str(ROOT / "build" / "solar"))
    ap.add_argument("--device", default=str(ROOT / "devices" / "h200-sxm.json"))
    ap.add_argument("--device-name", default="h200-sxm")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--learn-from", default=None, metavar="R.jsonl",
                    help="start the history with these measurements of OTHER pools (e.g. "
                         "bench/results/pools-h200-2026-12-01.jsonl): what the efficiencies "
                         "are learned from before this pool's first measurement")
    args = ap.parse_args()

    import torch
    import harness  # validate/harness.py: time_torch_cuda
    import pools    # bench/pools/pools.py: load_pool, load_module, build, compare
    if not torch.cuda.is_available():
        sys.exit("triage_loop: needs a CUDA GPU")
    folder = pathlib.Path(args.pool)
    meta = pools.load_pool(folder)
    tol = float(meta["tolerance"])
    pathlib.Path(args.history).touch()
    if args.learn_from and not pathlib.Path(args.history).stat().st_size:
        mine = folder.resolve()
        with open(args.learn_from) as src, open(args.history, "a") as dst:
            for line in src:
                if line.strip() and pathlib.Path(json.loads(line)["candidate"]).parent.resolve() != mine:
                    dst.write(line if line.endswith("\n") else line + "\n")

    ref_mod = pools.load_module(folder / meta["ref"])
    ref_model, inputs = pools.build(torch, ref_mod, "cuda")
    with torch.no_grad():
        ref_out = ref_model(*inputs)
    ref_exact = pools.exact_output(torch, ref_model, inputs)   # float64, for pools.compare

    def measure(file):
        mod = pools.load_module(folder / file)
        try:
            model, _ = pools.build(torch, mod, "cuda", with_inputs=False)
            with torch.no_grad():
                out = model(*inputs)
            ok, err, why = pools.compare(torch, out, ref_out, tol, ref_exact)
            t = harness.time_torch_cuda(torch, lambda: model(*inputs), args.warmup, args.runs)
            ms = t["time_s"] * 1e3
        except Exception as e:  # a candidate that does not run is wrong, not a crash
            ok, ms, why = False, 1e9, f"{type(e).__name__}: {e}"
        rec = ["triage", "--record", args.history, "--candidate", str(folder / file),
               "--device", args.device_name, "--ms", f"{ms:.6g}", "--l2", "cold"]
        solar(args, *rec, *([] if ok else ["--wrong"]))
        print(f"measured {file}: {ms:.4g} ms{'' if ok else ' WRONG: ' + why}", flush=True)
        return ms

    hist = [json.loads(l) for l in open(args.history) if l.strip()]
    if not any(pathlib.Path(h["candidate"]).name == meta["ref"] and
               pathlib.Path(h["candidate"]).parent.resolve() == folder.resolve() for h in hist):
        measure(meta["ref"])
    triage = ["triage", str(folder), "--device", args.device, "--l2", "cold", "--history",
              args.history]
    first = solar(args, *triage, "--format", "json", json_out=True)
    n = len(first["candidates"])
    budget = (math.ceil(float(args.budget[:-1]) / 100 * n) if args.budget.endswith("%")
              else int(args.budget))
    spent = 0
    while spent < budget:
        j = solar(args, *triage, "--format", "json", "--budget",
                  str(min(args.per_round, budget - spent)), json_out=True)
        if not j["plan"]:
            print("plan empty: every candidate left is pruned, skipped or measured")
            break
        for name in j["plan"]:
            measure(name)
            spent += 1
    print(f"\nmeasured {spent} of {n} candidates (budget {budget})\n")
    print(solar(args, *triage))


if __name__ == "__main__":
    main()
