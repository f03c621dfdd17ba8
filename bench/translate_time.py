"""How long `solar translate` (translation, `solar check` and the CPU validation) takes on every
KernelBench problem (docs/benchmarks.md, "Translation time"; the goal is under 30 s each).

    python3 bench/translate_time.py scan KB_DIR OUT.jsonl [--solar build/solar]
        [--levels 1,2,3] [--jobs N] [--timeout S] [--only NAME ...]
    python3 bench/translate_time.py report OUT.jsonl [OUT2.jsonl ...]   (Markdown on stdout)

KB_DIR is a checkout of ScalingIntelligence/KernelBench (its problems under
KB_DIR/KernelBench/level{1,2,3}/; not vendored).  Each problem is translated by `solar
translate PROBLEM.py -o TMP.air`, as a user would, under a wall-clock limit (--timeout, default
150 s; the whole process group is killed there); one JSON line per problem in OUT.jsonl: level,
problem, seconds (wall), status (validated, not validated, validation failed, untranslated,
timeout), the validation's line (its sizes and statement instances) or the first error.  A scan
resumes where it stopped.  `scan` ends with the summary that `report` prints: per level and in
all the count, median, p90 and maximum, and every problem over 30 s.  --jobs runs problems side
by side (default 1: each time is then one problem alone on the machine).
"""
import concurrent.futures as cf
import json
import math
import os
import pathlib
import platform
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernelbench_scan import first_error, parser, run  # noqa: E402

GOAL_S = 30.0


def one(args, level, path):
    rec = {"level": level, "problem": path.name}
    with tempfile.TemporaryDirectory(prefix="kb-time-") as d:
        air = pathlib.Path(d) / (path.stem + ".air")
        rc, out, err, secs = run([args.solar, "translate", str(path), "-o", str(air)], args.timeout)
    rec["seconds"] = round(secs, 2)
    rec["rc"] = rc
    text = out + err
    if rc == 124:
        rec["status"] = "timeout"
    elif "validated: PASS" in text:
        rec["status"] = "validated"
    elif "not validated" in text and rc == 0:
        rec["status"] = "not validated"
    elif rc != 0 and ": error: validation " in err:
        rec["status"] = "validation failed"
    else:
        rec["status"] = "untranslated" if rc != 0 else "not validated"
    line = next((ln for ln in out.splitlines() if "validated" in ln), None)
    if line:
        rec["validation"] = line.split(": ", 1)[-1][:400]
    if rec["status"] not in ("validated", "not validated"):
        rec["error"] = first_error(err or out)
    return rec


def problems(kb, levels, only):
    for level in levels:
        for p in sorted((kb / "KernelBench" / f"level{level}").glob("*.py"),
                        key=lambda p: int(p.name.split("_")[0])):
            if not only or p.stem in only or p.name.split("_")[0] in only:
                yield level, p


def scan(args):
    kb = pathlib.Path(args.kb)
    out = pathlib.Path(args.out)
    done = set()
    if out.exists():
        done = {(r["level"], r["problem"]) for r in map(json.loads, out.read_text().splitlines())}
    todo = [(lv, p) for lv, p in problems(kb, [int(x) for x in args.levels.split(",")], args.only)
            if (lv, p.name) not in done]
    print(f"{len(todo)} problems, {args.jobs} at a time, on {platform.node()} "
          f"({os.cpu_count()} CPUs), {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    with out.open("a") as f, cf.ThreadPoolExecutor(args.jobs) as ex:
        for fu in cf.as_completed([ex.submit(one, args, lv, p) for lv, p in todo]):
            r = fu.result()
            f.write(json.dumps(r) + "\n")
            f.flush()
            print(f"L{r['level']} {r['problem']}: {r['seconds']:.1f} s {r['status']}", flush=True)
    summary([out])


def pct(xs, q):
    """The q-quantile of xs by the nearest rank."""
    s = sorted(xs)
    return s[max(0, math.ceil(q * len(s)) - 1)]


def summary(files):
    recs = {}
    for fn in files:
        for r in map(json.loads, pathlib.Path(fn).read_text().splitlines()):
            recs[(r["level"], r["problem"])] = r
    rows = list(recs.values())
    print("| level | problems | median s | p90 s | max s | over 30 s | validated | not validated | "
          "failed or untranslated | timeout |\n|---|---|---|---|---|---|---|---|---|---|")
    for lv in sorted({r["level"] for r in rows}) + ["all"]:
        rs = [r for r in rows if lv == "all" or r["level"] == lv]
        t = [r["seconds"] for r in rs]
        st = [r["status"] for r in rs]
        print(f"| {lv} | {len(rs)} | {statistics.median(t):.1f} | {pct(t, 0.9):.1f} | {max(t):.1f} | "
              f"{sum(x > GOAL_S for x in t)} | {st.count('validated')} | {st.count('not validated')} | "
              f"{st.count('validation failed') + st.count('untranslated')} | {st.count('timeout')} |")
    slow = sorted((r for r in rows if r["seconds"] > GOAL_S), key=lambda r: -r["seconds"])
    print(f"\nOver {GOAL_S:.0f} s: {len(slow)}" + ("" if slow else " (none)"))
    for r in slow:
        print(f"- level{r['level']}/{r['problem']}: {r['seconds']:.1f} s, {r['status']}"
              + (f" ({r['error']})" if r.get("error") else ""))


def main():
    args = parser(__doc__, 1, 150)[0].parse_args()
    if args.cmd == "scan":
        scan(args)
    else:
        summary(args.files)
    return 0


if __name__ == "__main__":
    sys.exit(main())
