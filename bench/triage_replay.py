#!/usr/bin/env python3
"""Offline replay of `solar triage` on measured pools (docs/triage.md#evidence).

    bench/triage_replay.py --results bench/results/pools-h200-2026-12-01.jsonl \
        [--solar build/solar] [--device devices/h200-sxm.json] [--l2 cold] \
        [--budgets 10,25,50] [--seeds 200] [--cache DIR] [--json OUT.json]

For every pool (the folder of a result line's candidate) the search is replayed as it would
run: the history holds every OTHER pool's measurements (leave-one-pool-out: nothing learned
from the pool itself except what the replay measures in it) and the reference's own time (the
baseline, measured first and not counted in the budget).  Then, step by step, `solar triage
--format json --budget 1` names the next candidate to measure; its measured line from the
results is appended (a candidate with no measurement, or one marked "correct": false, is
recorded as wrong); the loop stops when the plan is empty or the largest budget is spent.  The
method is only ever solar's: this script reads its JSON and keeps score.

Per pool and overall, at each budget (a share of the pool's candidates, rounded up):
  - measured: the share of the pool actually measured (the plan may end earlier);
  - best found / pool best (a ratio of times >= 1; 1.0 = found the best): triage, random order (mean over
    seeds) and ranking by solar's bound alone (ascending bound_s of the first triage call);
  - prune precision: pruned candidates whose measured time was NOT faster than the incumbent
    at the time (must be 100%), and skip precision likewise (not guaranteed: skip is a bet);
  - interval coverage: share of candidates whose measured time lies in the interval of the
    first triage call, against the stated coverage.
Pool best and best found include the reference.
"""
import argparse
import collections
import json
import math
import os
import pathlib
import platform
import random
import subprocess
import sys
import tempfile
import time


def die(msg):
    print(f"triage_replay: error: {msg}", file=sys.stderr)
    sys.exit(2)


def read_results(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                j = json.loads(line)
            except json.JSONDecodeError as e:
                die(f"{path}:{n}: not valid JSON: {e}")
            for k in ("candidate", "ms"):
                if k not in j:
                    die(f"{path}:{n}: missing \"{k}\"")
            rows.append(j)
    return rows


def triage(args, pool, history, budget=None):
    manifest = os.path.join(args.manifests, pathlib.Path(pool).name + ".json")
    cmd = [args.solar, "triage", manifest if os.path.isfile(manifest) else pool, "--device", args.device, "--l2", args.l2, "--format",
           "json", "--history", history, "--coverage", str(args.coverage)]
    if args.cache:
        cmd += ["--cache", args.cache]
    if budget is not None:
        cmd += ["--budget", str(budget)]
    if args.trust_translation:
        cmd += ["--trust-translation"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-2000:]}")
    return json.loads(p.stdout)


def hist_line(row, args):
    return json.dumps({**row, "device": row.get("device", args.device_name),
                       "l2": row.get("l2", args.l2)}) + "\n"


def replay_pool(args, pool, rows_by_pool, tmp):
    mine = rows_by_pool[pool]
    name = pathlib.Path(pool).name
    ref_rows = [r for r in mine if pathlib.Path(r["candidate"]).name.startswith("ref.")]
    cand_rows = {pathlib.Path(r["candidate"]).name: r for r in mine
                 if pathlib.Path(r["candidate"]).name.startswith("cand_")}
    hist = os.path.join(tmp, f"{name}.jsonl")
    with open(hist, "w") as f:
        for p, rows in rows_by_pool.items():
            if p != pool:
                for r in rows:
                    f.write(hist_line(r, args))
        for r in ref_rows:
            f.write(hist_line(r, args))
    first = triage(args, pool, hist)
    names = [c["name"] for c in first["candidates"]]
    n = len(names)

    def true_ms(c):
        r = cand_rows.get(c)
        return r["ms"] if r is not None and r.get("correct", True) else math.inf
    ref_ms = min((r["ms"] for r in ref_rows if r.get("correct", True)), default=math.inf)
    best = min([ref_ms] + [true_ms(c) for c in names])
    ks = {b: max(1, math.ceil(b / 100 * n)) for b in args.budgets}
    kmax = max(ks.values())

    # coverage of the first call's intervals
    covered = total = 0
    for c in first["candidates"]:
        t = true_ms(c["name"])
        if math.isfinite(t) and c["decision"] not in ("measured", "wrong"):
            total += 1
            lo, hi = c["interval_s"]
            covered += lo <= t * 1e-3 <= hi
    # the search
    order, prunes, wrong_prunes, skips, wrong_skips, calls = [], 0, 0, 0, 0, 0
    j = first
    while len(order) < kmax:
        inc = j["incumbent"]["measured_s"] * 1e3 if j["incumbent"] else math.inf
        for c in j["candidates"]:
            if c["decision"] in ("prune", "skip"):
                faster = true_ms(c["name"]) < inc
                if c["decision"] == "prune":
                    prunes += 1
                    wrong_prunes += faster
                else:
                    skips += 1
                    wrong_skips += faster
        j = triage(args, pool, hist, budget=1)
        calls += 1
        if not j["plan"]:
            break
        c = j["plan"][0]
        order.append(c)
        r = cand_rows.get(c)
        with open(hist, "a") as f:
            if r is None:  # never measured: failed to run, recorded as wrong
                f.write(json.dumps({"candidate": os.path.join(pool, c), "device": args.device_name,
                                    "ms": 1e9, "l2": args.l2, "correct": False}) + "\n")
            else:
                f.write(hist_line(r, args))
    bound_order = [c["name"] for c in sorted(first["candidates"], key=lambda c: c["bound_s"] or 0)]
    rng = random.Random(0)
    below = j["below_sol"] if j else 0
    out = {"pool": name, "below_sol": below, "candidates": n, "best_ms": best, "ref_ms": ref_ms, "order": order,
           "calls": calls, "prunes": prunes, "wrong_prunes": wrong_prunes, "skips": skips,
           "wrong_skips": wrong_skips, "covered": covered, "coverage_total": total, "budgets": {}}
    for b, k in ks.items():
        found = min([ref_ms] + [true_ms(c) for c in order[:k]])
        by_bound = min([ref_ms] + [true_ms(c) for c in bound_order[:k]])
        rand = []
        for _ in range(args.seeds):
            perm = names[:]
            rng.shuffle(perm)
            rand.append(min([ref_ms] + [true_ms(c) for c in perm[:k]]) / best)
        out["budgets"][b] = {"k": k, "measured": min(len(order), k) / n,
                             "triage": found / best, "bound": by_bound / best,
                             "random": sum(rand) / len(rand)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--solar", default="build/solar")
    ap.add_argument("--device", default="devices/h200-sxm.json")
    ap.add_argument("--device-name", default="h200-sxm", help="for lines that lack \"device\"")
    ap.add_argument("--l2", default="cold", choices=("warm", "cold"))
    ap.add_argument("--coverage", type=float, default=0.8)
    ap.add_argument("--budgets", default="10,25,50")
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--cache", default=None)
    ap.add_argument("--manifests", default="bench/triage_pools",
                    help="a POOL.json here is triaged instead of the folder POOL (a pool whose "
                         "reference the translator cannot read, given an AIR)")
    ap.add_argument("--pools", default=None, help="only these pools (comma-separated names)")
    ap.add_argument("--trust-translation", action="store_true",
                    help="pass --trust-translation: translated candidates' unfused bounds prune")
    ap.add_argument("--json", default=None, help="write the per-pool numbers here")
    args = ap.parse_args()
    args.budgets = [int(b) for b in args.budgets.split(",")]
    rows = read_results(args.results)
    by_pool = collections.OrderedDict()
    for r in rows:
        if r.get("l2", args.l2) != args.l2:
            continue
        by_pool.setdefault(os.path.dirname(r["candidate"]), []).append(r)
    pools = [p for p in by_pool if os.path.isfile(os.path.join(p, "ref.py")) or
             os.path.isfile(os.path.join(p, "ref.air"))]
    left = [p for p in by_pool if p not in pools]
    if left:
        print(f"triage_replay: not pools (no ref.py or ref.air beside them): {left}",
              file=sys.stderr)
    if args.pools:
        keep = set(args.pools.split(","))
        pools = [p for p in pools if pathlib.Path(p).name in keep]
    if not pools:
        die("no pool folder with a reference found for the results' candidates")
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        res = [replay_pool(args, p, by_pool, tmp) for p in pools]
    print(f"# triage replay: {len(res)} pools, {args.results}, {args.device}, L2 {args.l2}, "
          f"coverage {args.coverage}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{platform.node()}, {time.time() - t0:.0f} s\n")
    hdr = "| pool | n |" + "".join(f" {b}%: measured | triage | bound | random |"
                                   for b in args.budgets) + " prunes (wrong) | skips (wrong) | coverage | below SOL |"
    print(hdr)
    print("|" + "---|" * (hdr.count("|") - 1))
    for r in res:
        cells = "".join(f" {r['budgets'][b]['measured']:.2f} | {r['budgets'][b]['triage']:.3f} | "
                        f"{r['budgets'][b]['bound']:.3f} | {r['budgets'][b]['random']:.3f} |"
                        for b in args.budgets)
        cov = f"{r['covered']}/{r['coverage_total']}"
        print(f"| {r['pool']} | {r['candidates']} |{cells} {r['prunes']} ({r['wrong_prunes']}) | "
              f"{r['skips']} ({r['wrong_skips']}) | {cov} | {r['below_sol']} |")
    def mean(key, b):
        return sum(r["budgets"][b][key] for r in res) / len(res)
    def worst(key, b):
        return max(r["budgets"][b][key] for r in res)
    cells = "".join(f" {mean('measured', b):.2f} | {mean('triage', b):.3f} | {mean('bound', b):.3f} | "
                    f"{mean('random', b):.3f} |" for b in args.budgets)
    P = sum(r["prunes"] for r in res)
    WP = sum(r["wrong_prunes"] for r in res)
    S = sum(r["skips"] for r in res)
    WS = sum(r["wrong_skips"] for r in res)
    C = sum(r["covered"] for r in res)
    T = sum(r["coverage_total"] for r in res)
    print(f"| **mean** | |{cells} {P} ({WP}) | {S} ({WS}) | {C}/{T} | "
          f"{sum(r['below_sol'] for r in res)} |")
    print()
    for b in args.budgets:
        print(f"budget {b}%: worst pool best-found/pool-best: triage {worst('triage', b):.3f}, "
              f"bound {worst('bound', b):.3f}, random {worst('random', b):.3f}; pools within 5%: "
              f"{sum(r['budgets'][b]['triage'] <= 1.05 for r in res)}/{len(res)}")
    print(f"prune precision: {100 * (P - WP) / P if P else 100:.1f}% of {P} prune decisions; "
          f"skip precision {100 * (S - WS) / S if S else 100:.1f}% of {S}; interval coverage "
          f"{C / T if T else float('nan'):.3f} (stated {args.coverage})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"results": args.results, "device": args.device, "l2": args.l2,
                       "coverage": args.coverage, "pools": res}, f, indent=1)
    return 1 if WP else 0


if __name__ == "__main__":
    sys.exit(main())
