"""KernelBench against solar's bounds (docs/soundness.md, "KernelBench"): every problem is
translated, analysed on a descriptor, and its bounds held against KernelBench's own timings.

    python3 bench/kernelbench_scan.py scan KB_DIR OUT.jsonl [--solar build/solar]
        [--device h100-sxm] [--jobs N] [--timeout S] [--levels 1,2,3] [--only NAME ...]
    python3 bench/kernelbench_scan.py report OUT.jsonl [OUT2.jsonl ...]   (Markdown on stdout)

KB_DIR is a checkout of ScalingIntelligence/KernelBench (fetch it; it is not vendored): the
problems under KB_DIR/KernelBench/level{1,2,3}/ and the H100 timings under
KB_DIR/results/timing/H100_Modal/baseline_time_torch.json (eager) and
baseline_time_torch_compile_inductor_default.json (torch.compile), in ms, 100 trials, L2
flushed before each (KernelBench's timing.py).

Per problem: `solar translate` (which validates the AIR against PyTorch on the CPU at shrunk
sizes; a translation that does not validate is counted, not compared), then `solar analyze
--l2 cold --json` (KernelBench flushes the L2) at the file's own sizes.  A violation is a bound
above a measured minimum: the unfused bound (the kernels as written) against eager, the fused and
cache-aware bounds (which hold for any execution) against eager and torch.compile alike.  Each
problem is one JSON line in OUT.jsonl; a scan resumes where it stopped (problems already in
OUT.jsonl are skipped).
"""
import argparse
import concurrent.futures as cf
import json
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
import time

TIMINGS = {"eager": "baseline_time_torch.json",
           "compile": "baseline_time_torch_compile_inductor_default.json"}


def run(cmd, timeout, cwd=None):
    """(rc, stdout, stderr, seconds); the whole process group is killed at the timeout."""
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return 124, out, err, time.time() - t0
    return p.returncode, out, err, time.time() - t0


def first_error(err):
    lines = [ln for ln in err.splitlines() if "error" in ln.lower()] or err.splitlines()
    return (lines[0] if lines else "").strip()[:300]


def one(args, level, path, timing):
    name = path.name
    rec = {"level": level, "problem": name}
    for k, t in timing.items():
        v = t.get(f"level{level}", {}).get(name)
        rec[f"{k}_min_s"] = v["min"] / 1e3 if v else None
    with tempfile.TemporaryDirectory(prefix="kb-scan-") as d:
        air = pathlib.Path(d) / (path.stem + ".air")
        rc, out, err, secs = run([args.solar, "translate", str(path), "-o", str(air)],
                                 args.timeout)
        rec["translate_s"] = round(secs, 2)
        text = out + err
        if rc == 124:
            rec["status"] = "timeout"
        elif rc != 0 or not air.exists():
            rec["status"] = "untranslated"
            rec["error"] = first_error(err)
        else:
            rec["status"] = ("validated" if "validated: PASS" in text else
                             "not validated" if "not validated" in text or "validated" not in text
                             else "validation failed")
            if rec["status"] != "validated":
                rec["error"] = first_error(text)
            rc, out, err, _ = run([args.solar, "analyze", str(air), "--device", args.device,
                                   "--l2", "cold", "--json"], 300)
            if rc not in (0, 1) or not out.strip():
                rec["status"] = "analyze failed"
                rec["error"] = first_error(err)
            else:
                j = json.loads(out)
                for b in ("unfused", "fused", "cache_aware"):
                    rec[f"{b}_s"] = j[b]["time_s"]
                    rec[f"{b}_limited_by"] = j[b].get("limited_by")
                rec["math"] = sorted({ln.split("[math = ")[1].split("]")[0]
                                      for ln in air.read_text().splitlines()
                                      if ln.startswith("kernel ") and "[math = " in ln})
    rec["violations"] = violations(rec)
    return rec


def violations(rec):
    v = []
    checks = [("unfused_s", "eager_min_s")] + [(b, m) for b in ("fused_s", "cache_aware_s")
                                               for m in ("eager_min_s", "compile_min_s")]
    for b, m in checks:
        if rec.get(b) and rec.get(m) and rec[b] > rec[m] * (1 + 1e-9):
            v.append(f"{b[:-2]} {rec[b] * 1e3:.4g} ms > {m[:-6]} {rec[m] * 1e3:.4g} ms")
    return v


def scan(args):
    kb = pathlib.Path(args.kb)
    timing = {k: json.loads((kb / "results/timing/H100_Modal" / f).read_text())
              for k, f in TIMINGS.items()}
    out = pathlib.Path(args.out)
    done = set()
    if out.exists():
        for ln in out.read_text().splitlines():
            r = json.loads(ln)
            done.add((r["level"], r["problem"]))
    todo = []
    for level in (int(x) for x in args.levels.split(",")):
        for p in sorted((kb / "KernelBench" / f"level{level}").glob("*.py"),
                        key=lambda p: int(p.name.split("_")[0])):
            if (level, p.name) not in done and (not args.only or p.stem in args.only or p.name in args.only
                                                or p.name.split("_")[0] in args.only):
                todo.append((level, p))
    with out.open("a") as f, cf.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(one, args, lv, p, timing) for lv, p in todo]
        for fu in cf.as_completed(futs):
            r = fu.result()
            f.write(json.dumps(r) + "\n")
            f.flush()
            print(f"L{r['level']} {r['problem']}: {r['status']}"
                  + (f"  VIOLATION {r['violations']}" if r["violations"] else ""), flush=True)


def fmt_ms(s):
    return f"{s * 1e3:.4g}" if s else "-"


def report(args):
    recs = {}
    for fn in args.files:
        for ln in pathlib.Path(fn).read_text().splitlines():
            r = json.loads(ln)
            recs[(r["level"], r["problem"])] = r   # a later file's line wins
    rows = sorted(recs.values(), key=lambda r: (r["level"], int(r["problem"].split("_")[0])))
    print("| level | translated | validated | compared | violations |\n|---|---|---|---|---|")
    for lv in (1, 2, 3):
        rs = [r for r in rows if r["level"] == lv]
        tr = [r for r in rs if r["status"] not in ("untranslated", "timeout")]
        print(f"| {lv} | {len(tr)}/{len(rs)} | {sum(r['status'] == 'validated' for r in rs)} | "
              f"{sum(bool(r.get('cache_aware_s')) for r in rs)} | "
              f"{sum(bool(r['violations']) for r in rs)} |")
    print("\n| problem | status | eager min (ms) | compile min (ms) | unfused (ms) | "
          "cache-aware (ms) | fused (ms) | limited by | math | violation |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| L{r['level']}/{r['problem'][:-3]} | {r['status']} | {fmt_ms(r.get('eager_min_s'))} | "
              f"{fmt_ms(r.get('compile_min_s'))} | {fmt_ms(r.get('unfused_s'))} | "
              f"{fmt_ms(r.get('cache_aware_s'))} | {fmt_ms(r.get('fused_s'))} | "
              f"{r.get('cache_aware_limited_by') or '-'} | {','.join(r.get('math') or []) or '-'} | "
              f"{'; '.join(r['violations']) or (r.get('error') or '')[:80].replace('|', '/')} |")
    return 1 if any(r["violations"] for r in rows) else 0


def parser(doc, jobs, timeout):
    """The command line of a KernelBench scan (this file's, bench/translate_time.py's): `scan
    KB_DIR OUT.jsonl [--solar] [--jobs] [--timeout] [--levels] [--only]` and `report FILES`;
    returns (the parser, the scan subparser)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scan")
    s.add_argument("kb")
    s.add_argument("out")
    s.add_argument("--solar", default="build/solar")
    s.add_argument("--jobs", type=int, default=jobs)
    s.add_argument("--timeout", type=float, default=timeout)
    s.add_argument("--levels", default="1,2,3")
    s.add_argument("--only", nargs="*", default=[])
    sub.add_parser("report").add_argument("files", nargs="+")
    return ap, s


def main():
    ap, s = parser(__doc__, max(1, (os.cpu_count() or 2) - 1), 240)
    s.add_argument("--device", default="h100-sxm")
    args = ap.parse_args()
    if args.cmd == "scan":
        scan(args)
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
