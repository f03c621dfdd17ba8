#!/usr/bin/env python3
"""Replay `solar advise` on the measured candidate pools, leave one problem out (docs/advise.md,
"Evidence").

    python3 bench/advise_replay.py --pools bench/pools \
        --results bench/results/pools-h200-2026-12-01.jsonl --solar build/solar \
        --device devices/h200-sxm.json [--out replay.json] [--cache DIR] [--jobs 2]

A pool is bench/pools/<problem>/{ref.py, cand_*.py, pool.json}; each candidate names its
"parent" (the program it improves on, or "ref"), the "direction" of that step and its
"strategy".  The results file has one JSON line per measured program (helper "pools"'
bench/pools/measure.py): {"candidate": "bench/pools/<p>/cand_x.py", "ms", "correct", "l2", ...}.

States and steps.  A *state* is a measured program with at least one measured child.  A step
state -> child has the child's direction and the measured gain t_state - t_child (a wrong child
gains nothing).  Two kinds of state are replayed:
  forward  the pool's own parent links (ref -> candidates -> their children);
  repair   a deliberately poor candidate (kind "poor") slower than its parent: the step back to
           the parent, labelled with the poor candidate's direction (fp32 -> bf16 is datapath).
For every state the best step is the child with the largest measured gain; a state whose best
step gains less than --min-gain (default 5%) of its time is one where "stop" is right.

Each state's program is translated once (`solar translate --no-validate`, cached by content hash
under --cache); a program that does not translate (Triton, torch.compile) is advised on its
problem's reference AIR, and the report counts how often.  Per state, three rankings of the five
directions:
  memory    `solar advise --memory M --previous DIR`, M the steps of every *other* problem,
            written from each state's advise JSON (its signature, each direction's predicted
            gain) as `solar advise --record` writes them;
  analysis  `solar advise` without memory;
  fixed     a fixed order: fusion, data reuse, datapath, redundant work, implementation;
  frequency the directions by how often each gave the best step in the other problems (a
            memory without the analysis);
and the score: is the best step's direction first / in the top 3.  Also: how often the stop
verdict is right.  Nothing of advise's method is re-implemented here: rankings come from its
JSON.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor

DIRECTIONS = ["implementation", "fusion", "data reuse", "datapath", "redundant work"]
FIXED = ["fusion", "data reuse", "datapath", "redundant work", "implementation"]


def load_results(path, l2=None):
    """{(problem, file): line} from the measurement JSONL, lines of L2 mode l2 only (None:
    cold when the file has cold lines, else warm); the last line of a program wins."""
    out = {}
    lines = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                r = json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{path}:{n}: error: invalid JSON: {e}")
            lines.append(r)
    if l2 is None:
        l2 = "cold" if any(r.get("l2", "cold") == "cold" for r in lines) else "warm"
    for r in lines:
        if r.get("l2", "cold") != l2:
            continue
        cand = r.get("candidate", "")
        prob = r.get("problem") or os.path.basename(os.path.dirname(cand))
        out[(prob, os.path.basename(cand))] = r
    return out, l2


def measured_s(r):
    """Seconds, or None when the program was not measured (an error, no time)."""
    if not r or r.get("error") or not isinstance(r.get("ms"), (int, float)) or r["ms"] <= 0:
        return None
    return r["ms"] * 1e-3


def translate(solar, py, cache, env):
    """The AIR file of a model, translated once per content hash; None when it fails."""
    with open(py, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()[:20]
    air = os.path.join(cache, h + ".air")
    failed = os.path.join(cache, h + ".failed")
    if os.path.exists(air):
        return air
    if os.path.exists(failed):
        return None
    tmp = f"{air}.{os.getpid()}.{threading.get_ident()}.tmp.air"  # runs may share the cache
    p = subprocess.run([solar, "translate", py, "-o", tmp, "--no-validate"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode == 0 and os.path.exists(tmp):
        os.replace(tmp, air)
        return air
    with open(failed, "w") as f:
        f.write(p.stdout[-4000:])
    return None


def advise(args, air, t, tol, extra=()):
    cmd = [args.solar, "advise", air, "--measured", repr(t), "--device", args.device,
           "--l2", args.l2, "--tol", repr(tol), "--format", "json", *extra]
    if args.stop_factor:
        cmd += ["--stop-factor", repr(args.stop_factor)]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    return json.loads(p.stdout), None


def build_states(pools_dir, results, problems):
    """Per problem: nodes {file: {...}} and states [{node, steps: [...], kind}]."""
    out = {}
    for prob in problems:
        pool = json.load(open(os.path.join(pools_dir, prob, "pool.json")))
        nodes = {"ref": {"file": pool.get("ref", "ref.py"), "parent": None, "direction": None,
                         "kind": "ref", "strategy": "reference"}}
        for c in pool["candidates"]:
            nodes[c["file"]] = dict(c)
        for key, n in nodes.items():
            r = results.get((prob, os.path.basename(n["file"])))
            n["t"] = measured_s(r)
            n["correct"] = bool(r and r.get("correct", False)) if key != "ref" else True
        states = []
        for key, n in nodes.items():
            if n["t"] is None:
                continue
            kids = [(k, c) for k, c in nodes.items()
                    if c.get("parent") == key and c["t"] is not None]
            if kids:
                states.append({"node": key, "kind": "forward", "steps": [
                    {"to": k, "direction": c["direction"], "strategy": c["strategy"],
                     "after": c["t"], "correct": c["correct"],
                     "gain": (n["t"] - c["t"]) if c["correct"] else 0.0}
                    for k, c in kids]})
            par = nodes.get(n.get("parent") or "", None)
            if (n["kind"] == "poor" and par and par["t"] is not None and par["t"] < n["t"]
                    and n["correct"]):
                states.append({"node": key, "kind": "repair", "steps": [
                    {"to": n["parent"], "direction": n["direction"],
                     "strategy": "undo: " + n["strategy"], "after": par["t"], "correct": True,
                     "gain": n["t"] - par["t"]}]})
        out[prob] = {"pool": pool, "nodes": nodes, "states": states}
    return out


def previous_direction(nodes, key):
    n = nodes[key]
    return n.get("direction") if n.get("parent") else None


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default="bench/pools")
    ap.add_argument("--results", required=True)
    ap.add_argument("--solar", default="build/solar")
    ap.add_argument("--device", default="devices/h200-sxm.json")
    ap.add_argument("--l2", default=None, help="warm|cold; default: the results' l2")
    ap.add_argument("--cache", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "solar", "advise-replay"))
    ap.add_argument("--min-gain", type=float, default=0.05)
    ap.add_argument("--stop-factor", type=float, default=None,
                    help="passed to solar advise (default: advise's own, 1.5)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=None)
    return ap.parse_args(argv)


def translate_states(args, data):
    """{(problem, node): AIR path or None} of every state's program and of each reference,
    translated in parallel, cached."""
    env = dict(os.environ)
    want = set()
    for prob, d in data.items():
        want.add((prob, "ref"))
        for s in d["states"]:
            want.add((prob, s["node"]))
    paths = {w: os.path.join(args.pools, w[0], data[w[0]]["nodes"][w[1]]["file"]) for w in want}
    with ThreadPoolExecutor(args.jobs) as ex:
        return dict(zip(paths, ex.map(lambda w: translate(args.solar, paths[w], args.cache, env),
                                      paths)))


def state_air(args, data, airs, prob, key):
    """(the AIR a state is advised on, "own" or "ref"): its own translation, else the
    reference's, else the pool's hand-written lower-bound AIR (pool.json's "lower_bound_air":
    cross_entropy's reference uses an op translate does not read)."""
    a = airs.get((prob, key))
    if a:
        return a, "own"
    a = airs.get((prob, "ref"))
    lb = data[prob]["pool"].get("lower_bound_air")
    if not a and lb and os.path.exists(os.path.join(args.pools, prob, lb)):
        a = os.path.join(args.pools, prob, lb)
    return a, "ref"


def state_previous(d, s):
    """The direction of the step that made a forward state's program (--previous), or None."""
    return previous_direction(d["nodes"], s["node"]) if s["kind"] == "forward" else None


def memory_steps(data, jobs, first):
    """{problem: its steps}, written from each state's advise JSON without memory (its
    signature, each direction's predicted gain) as `solar advise --record` writes them
    (docs/advise.md "memory"; the record path itself is tested by tests/advise/run.sh)."""
    steps_of = {prob: [] for prob in data}
    for (prob, s, air, src, tol), (a, err) in zip(jobs, first):
        if a is None:
            continue
        d = data[prob]
        t = d["nodes"][s["node"]]["t"]
        prev = state_previous(d, s)
        gain = {x["name"]: x["max_gain_s"] for x in a["directions"]}
        for st in s["steps"]:
            steps_of[prob].append({
                "problem": prob,
                "signature": dict(a["signature"], sizes=a["params"]),
                "previous": prev, "direction": st["direction"], "strategy": st["strategy"],
                "before": {"measured_s": t, "bound_s": a["bounds"]["unfused_s"]},
                "after": {"measured_s": st["after"]},
                "max_gain_s": gain.get(st["direction"], 0.0), "correct": st["correct"],
                "why": ("wrong output: output differs from the reference" if not st["correct"]
                        else "faster" if st["after"] < t else "slower")})
    return steps_of


def advise_with_memory(args, data, jobs, first, steps_of):
    """Every state advised again, leave one problem out: --memory holds the steps of every
    other problem."""
    tmp = tempfile.mkdtemp(prefix="advise-replay-")

    def with_memory(job_first):
        (prob, s, air, src, tol), (a, err) = job_first
        if a is None:
            return None, err
        loo = os.path.join(tmp, "loo-" + prob + ".json")
        d = data[prob]
        prev = state_previous(d, s)
        extra = ["--memory", loo] + (["--previous", prev] if prev else [])
        return advise(args, air, d["nodes"][s["node"]]["t"], tol, extra)

    for prob in data:
        others = [x for p2, xs in steps_of.items() if p2 != prob for x in xs]
        with open(os.path.join(tmp, "loo-" + prob + ".json"), "w") as f:
            json.dump({"schema": "solar.advise-memory/1", "steps": others}, f)
    with ThreadPoolExecutor(args.jobs) as ex:
        return list(ex.map(with_memory, zip(jobs, first)))


def freq_order(args, data, held_out):
    """Directions by how often each was the best paying step in the other problems."""
    count = {x: 0 for x in DIRECTIONS}
    for p2, d2 in data.items():
        if p2 == held_out:
            continue
        for s in d2["states"]:
            best = max(s["steps"], key=lambda x: x["gain"])
            t = d2["nodes"][s["node"]]["t"]
            if best["gain"] >= args.min_gain * t and best["direction"] in count:
                count[best["direction"]] += 1
    return sorted(DIRECTIONS, key=lambda x: (-count[x], FIXED.index(x)))


def replay_rows(args, data, jobs, first, second):
    """One row per state: its best step and the four rankings (or the error)."""
    rows = []
    for (prob, s, air, src, tol), (a, err), (b, err2) in zip(jobs, first, second):
        node = data[prob]["nodes"][s["node"]]
        best = max(s["steps"], key=lambda x: x["gain"])
        row = {"problem": prob, "state": s["node"], "kind": s["kind"], "air": src,
               "t_s": node["t"], "best": best["to"], "best_direction": best["direction"],
               "best_gain": best["gain"] / node["t"], "steps": len(s["steps"])}
        if a is None or b is None:
            row["error"] = err or err2
            rows.append(row)
            continue
        row["analysis"] = [x["name"] for x in a["directions"]]
        row["memory"] = [x["name"] for x in b["directions"]]
        row["fixed"] = FIXED
        row["frequency"] = freq_order(args, data, prob)
        row["verdict"] = a["verdict"]
        row["headroom"] = node["t"] / a["sol_s"] if a["sol_s"] > 0 else None
        rows.append(row)
    return rows


def score(args, rows, kind_filter):
    """Hits of each ranking (top 1, top 3) over the states with a paying step, and the stop
    verdicts, of the rows kind_filter keeps."""
    ok = [r for r in rows if "analysis" in r and kind_filter(r)]
    pay = [r for r in ok if r["best_gain"] >= args.min_gain]
    res = {"states": len(ok), "states_with_a_paying_step": len(pay)}
    for name in ("memory", "analysis", "fixed", "frequency"):
        res[name] = {
            "top1": sum(r[name][0] == r["best_direction"] for r in pay),
            "top3": sum(r["best_direction"] in r[name][:3] for r in pay)}
    res["stop_right"] = sum((r["verdict"] == "stop") == (r["best_gain"] < args.min_gain)
                            for r in ok)
    res["stop_said"] = sum(r["verdict"] == "stop" for r in ok)
    res["stop_true"] = sum(r["best_gain"] < args.min_gain for r in ok)
    return res


def print_summary(summary):
    rows = summary["rows"]
    for part in ("all", "forward", "repair", "own_air"):
        s = summary[part]
        n = s["states_with_a_paying_step"]
        line = f"{part:8s} states {s['states']:3d}, paying {n:3d}:"
        for name in ("memory", "analysis", "fixed", "frequency"):
            line += (f"  {name} top1 {s[name]['top1']}/{n} top3 {s[name]['top3']}/{n}")
        line += f"  stop right {s['stop_right']}/{s['states']} (said {s['stop_said']}, true {s['stop_true']})"
        print(line)
    print(f"errors: {len(summary['errors'])}; states on the reference AIR: "
          f"{sum(1 for r in rows if r.get('air') == 'ref')} of {len(rows)}")


def main(argv):
    args = parse_args(argv)
    os.makedirs(args.cache, exist_ok=True)
    results, args.l2 = load_results(args.results, args.l2)
    problems = sorted(d for d in os.listdir(args.pools)
                      if os.path.exists(os.path.join(args.pools, d, "pool.json")))
    data = build_states(args.pools, results, problems)
    airs = translate_states(args, data)

    # every state advised once without memory (the "analysis" ranking); its JSON also gives
    # the memory steps (memory_steps)
    jobs = []
    for prob, d in data.items():
        tol = float(d["pool"].get("tolerance", 1e-4))
        for s in d["states"]:
            air, src = state_air(args, data, airs, prob, s["node"])
            jobs.append((prob, s, air, src, tol))

    def plain(job):
        prob, s, air, src, tol = job
        if not air:
            return None, "no AIR"
        return advise(args, air, data[prob]["nodes"][s["node"]]["t"], tol)

    with ThreadPoolExecutor(args.jobs) as ex:
        first = list(ex.map(plain, jobs))
    second = advise_with_memory(args, data, jobs, first, memory_steps(data, jobs, first))
    rows = replay_rows(args, data, jobs, first, second)
    summary = {
        "results": args.results, "device": args.device, "l2": args.l2,
        "min_gain": args.min_gain, "problems": len(data),
        "errors": [r for r in rows if "error" in r],
        "all": score(args, rows, lambda r: True),
        "forward": score(args, rows, lambda r: r["kind"] == "forward"),
        "repair": score(args, rows, lambda r: r["kind"] == "repair"),
        "own_air": score(args, rows, lambda r: r["air"] == "own"),
        "rows": rows,
    }
    text = json.dumps(summary, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print_summary(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
