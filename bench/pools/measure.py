"""Measures every candidate of the pools on a CUDA GPU: correctness against the reference and
run time with the harness's timer.

    python bench/pools/measure.py --pools bench/pools --out OUT.jsonl [--only P1,P2]
                                  [--runs 100 --warmup 5] [--warm] [--limit-s 60]

For each problem (a folder with pool.json, bench/pools/README.md) it builds the reference and
each candidate the way validate/harness.py builds a model (seed 0, Model(*get_init_inputs()),
on the GPU), runs every one on the reference's get_inputs() (the same tensors for all), checks
the output against the reference's (allclose with rtol = atol = the pool's tolerance, as
KernelBench; a wrong candidate is still timed and marked "correct": false), and times it with
validate/harness.py's time_torch_cuda (CUDA events, the L2 flushed before each run; --warm adds
a second line per candidate timed back to back without the flush, "l2": "warm").  Math flags:
matmul and cuDNN TF32 as the pool's "tf32_allowed" says (all pools: off).

One JSON line per candidate and for the reference, flushed as written:
  {"candidate": "bench/pools/<p>/cand_x.py", "problem", "device", "ms", "min_ms", "runs",
   "l2", "correct", "max_err", "kind", "gpu", "torch", "triton", "date", ...; "error" when it failed}
Each problem runs in a child process; each candidate under signal.alarm(--limit-s, or
--compile-limit-s for torch.compile ones); a candidate that raises is recorded with its error;
one that leaves CUDA unusable, crashes the child or hangs in a kernel (the parent's watchdog)
is recorded and the child is restarted after it.  A one-line summary per candidate goes to
stdout.  --cpu-smoke runs the plumbing on the CPU at the pools' cpu_sizes with a one-call timer
(no measurement: "device": "cpu-smoke"), for checking this script without a GPU.
"""
import argparse
import datetime
import json
import os
import pathlib
import queue
import signal
import subprocess
import sys
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
BROKEN = 3          # child exit status: CUDA is unusable after the candidate it names


def problems_of(args):
    root = pathlib.Path(args.pools)
    names = [p for p in args.only.split(",") if p]
    if not names:
        names = sorted(d.name for d in root.iterdir() if (d / "pool.json").is_file())
    for n in names:
        if not (root / n / "pool.json").is_file():
            sys.exit(f"measure.py: error: {root / n}/pool.json does not exist")
    return names


def display_path(path):
    """path relative to the checkout; its folders resolved, not the file itself (a pool's
    ref.py may be a link to an example, and the lines name the pool's file)."""
    path = pathlib.Path(path)
    path = path.parent.resolve() / path.name
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------------------------
# The parent: one child per problem, restarted after a candidate that breaks it.

def run_problem(args, problem, out):
    """Runs children for one problem until every candidate has a line."""
    start = 0
    while True:
        cmd = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", problem,
               "--start", str(start)] + args.passthrough
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, bufsize=1)
        lines = queue.Queue()
        threading.Thread(target=lambda: [lines.put(l) for l in proc.stdout] + [lines.put(None)],
                         daemon=True).start()
        # until the first candidate: the child's start-up (import torch, CUDA) and the reference
        current, done, limit, hung = None, None, args.limit_s + 120, False
        while True:
            try:
                line = lines.get(timeout=limit + 30)
            except queue.Empty:   # no progress: a kernel that never returns
                hung = True
                proc.kill()
                break
            if line is None:
                break
            if line.startswith("@@ start "):
                _, _, idx, lim = line.split()
                current, limit = int(idx), float(lim)
            elif line.startswith("@@ done "):
                done = int(line.split()[2])
            else:
                print(line, end="", flush=True)
        rc = proc.wait()
        if rc == 0 and not hung:
            return
        if current is None:   # died before the first candidate: the reference itself
            why = f"the child failed (exit status {rc}{', hung' if hung else ''}) before any candidate"
            write_line(out, lost_line(args, problem, None, why))
            print(f"{problem}: {why}; giving up on it", flush=True)
            return
        if rc != BROKEN and done != current:   # its own line is missing
            why = (f"no progress for {limit + 30:.0f} s (killed)" if hung
                   else f"the measuring process died (exit status {rc})")
            write_line(out, lost_line(args, problem, current, why))
            print(f"{problem}: candidate {current}: {why}", flush=True)
        start = current + 1


def lost_line(args, problem, idx, why):
    """The line for a candidate whose child died or hung before it wrote its own."""
    sys.path.insert(0, str(HERE))
    import pools
    folder = pathlib.Path(args.pools) / problem
    pool = pools.load_pool(folder)
    c = pool["candidates"][idx] if idx is not None else {
        "file": pool["ref"], "kind": "ref", "direction": None, "strategy": None, "parent": None}
    return {"candidate": display_path(folder / c["file"]), "problem": problem,
            "device": "cpu-smoke" if args.cpu_smoke else args.device_name,
            "name": pathlib.Path(c["file"]).stem, "kind": c["kind"], "ms": None, "min_ms": None,
            "runs": 0, "l2": "cold", "correct": None, "max_err": None, "date": now(),
            "direction": c["direction"], "strategy": c["strategy"], "parent": c["parent"],
            "error": why}


def write_line(path, obj):
    with open(path, "a") as f:
        f.write(json.dumps(obj) + "\n")
        f.flush()


# ---------------------------------------------------------------------------------------------
# The child: one problem, candidates from --start on.

class CandidateTimeout(Exception):
    pass


def on_alarm(signum, frame):
    raise CandidateTimeout("candidate exceeded its time limit")


def child(args):
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT / "validate"))
    import torch
    import pools
    smoke = args.cpu_smoke
    if smoke:
        device = "cpu"

        def timer(torch, fn, warmup, runs, flush_l2=True):
            t0 = time.perf_counter()
            fn()
            t = time.perf_counter() - t0
            return {"time_s": t, "min_s": t, "runs": 1}
    else:
        from harness import time_torch_cuda as timer
        device = "cuda"
    folder = pathlib.Path(args.pools) / args.child
    pool = pools.load_pool(folder)
    sizes = pool["cpu_sizes"] if smoke else None
    tol = pool["tolerance"]
    torch.backends.cuda.matmul.allow_tf32 = bool(pool["tf32_allowed"])
    torch.backends.cudnn.allow_tf32 = bool(pool["tf32_allowed"])
    try:
        import triton
        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    common = {"problem": args.child, "device": "cpu-smoke" if smoke else args.device_name,
              "gpu": "cpu" if smoke else torch.cuda.get_device_name(),
              "torch": torch.__version__, "triton": triton_version,
              "tolerance": tol, "tf32": bool(pool["tf32_allowed"]), "warmup": args.warmup}
    signal.signal(signal.SIGALRM, on_alarm)

    try:
        ref_mod = pools.load_module(folder / pool["ref"], sizes)
        ref_model, _ = pools.build(torch, ref_mod, device, with_inputs=False)
        torch.manual_seed(pools.SEED)
        with torch.device(device):   # made on the device: the same tensors for every candidate
            inputs = list(ref_mod.get_inputs())
        with torch.no_grad():
            expect = ref_model(*inputs)
        exact = pools.exact_output(torch, ref_model, inputs)   # float64, for pools.compare
        if not smoke:
            torch.cuda.synchronize()
    except Exception as e:   # nothing can be checked without the reference: one line, next pool
        write_line(args.out, dict(common, candidate=display_path(folder / pool["ref"]), name="ref",
                                  kind="ref", ms=None, min_ms=None, runs=0, l2="cold",
                                  correct=None, max_err=None, date=now(), error=describe(e)))
        print(f"{args.child}: the reference failed: {describe(e)}", flush=True)
        return 0

    def measure(name, file, kind, model, correct, err, extra):
        for l2 in (["cold", "warm"] if args.warm else ["cold"]):
            t = timer(torch, lambda: model(*inputs), args.warmup, args.runs, flush_l2=l2 == "cold")
            line = dict(common, candidate=display_path(folder / file), name=name, kind=kind,
                        ms=t["time_s"] * 1e3, min_ms=t["min_s"] * 1e3, runs=t["runs"], l2=l2,
                        correct=correct, max_err=err, date=now(), **extra)
            write_line(args.out, line)
            summary(line)

    if args.start == 0:
        measure("ref", pool["ref"], "ref", ref_model, True, 0.0, {})
    cands = pool["candidates"]
    for idx in range(args.start, len(cands)):
        c = cands[idx]
        limit = args.compile_limit_s if c["kind"] == "compile" else args.limit_s
        print(f"@@ start {idx} {limit}", flush=True)
        name = pathlib.Path(c["file"]).stem
        extra = {"direction": c["direction"], "strategy": c["strategy"], "parent": c["parent"]}
        model = out = None
        t0 = time.time()
        signal.alarm(int(limit))
        try:
            model, _ = pools.build(torch, pools.load_module(folder / c["file"], sizes), device,
                                   with_inputs=False)
            with torch.no_grad():
                out = model(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
            detail = {}
            correct, err, why = pools.compare(torch, out, expect, tol, exact, detail)
            if why:
                extra["why"] = why
            extra.update(detail)
            del out
            extra["first_call_s"] = round(time.time() - t0, 3)
            measure(name, c["file"], c["kind"], model, correct, err, extra)
            print(f"@@ done {idx}", flush=True)
        except BaseException as e:   # noqa: B036 - a timeout or any failure is one candidate's
            signal.alarm(0)
            if isinstance(e, KeyboardInterrupt):
                raise
            line = dict(common, candidate=display_path(folder / c["file"]), name=name,
                        kind=c["kind"], ms=None, min_ms=None, runs=0, l2="cold", correct=None,
                        max_err=None, date=now(),
                        error=describe(e), **extra)
            write_line(args.out, line)
            summary(line)
            print(f"@@ done {idx}", flush=True)
            if not smoke and not cuda_usable(torch):
                print(f"{args.child}: CUDA is unusable after {c['file']}; restarting", flush=True)
                sys.exit(BROKEN)
        finally:
            signal.alarm(0)
        model = None
        if not smoke:
            torch.cuda.empty_cache()
    return 0


def describe(e):
    return f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"


def cuda_usable(torch):
    try:
        torch.cuda.synchronize()
        return torch.ones(4, device="cuda").sum().item() == 4.0
    except Exception:
        return False


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def summary(line):
    who = f"{line['problem']}/{line['name']}"
    if line.get("error"):
        print(f"{who:45s} ERROR {line['error'][:100]}", flush=True)
        return
    ok = "ok   " if line["correct"] else "WRONG"
    print(f"{who:45s} {line['l2']:4s} {line['ms']:9.4f} ms (min {line['min_ms']:.4f})  {ok} "
          f"max_err {line['max_err']:.2e}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default=str(HERE))
    ap.add_argument("--out", required=True, help="JSONL file; lines are appended")
    ap.add_argument("--only", default="", help="comma-separated problems (default: all)")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--warm", action="store_true", help="also time without the L2 flush")
    ap.add_argument("--limit-s", type=float, default=60.0, help="per candidate")
    ap.add_argument("--compile-limit-s", type=float, default=150.0, help="per torch.compile candidate")
    ap.add_argument("--device-name", default="h200-sxm", help="the descriptor name recorded")
    ap.add_argument("--cpu-smoke", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args)
    args.passthrough = ["--pools", args.pools, "--out", args.out, "--runs", str(args.runs),
                        "--warmup", str(args.warmup), "--limit-s", str(args.limit_s),
                        "--compile-limit-s", str(args.compile_limit_s),
                        "--device-name", args.device_name]
    args.passthrough += ["--warm"] * args.warm + ["--cpu-smoke"] * args.cpu_smoke
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    for problem in problems_of(args):
        t1 = time.time()
        run_problem(args, problem, args.out)
        print(f"== {problem}: {time.time() - t1:.1f} s", flush=True)
    print(f"== all: {time.time() - t0:.1f} s, lines in {args.out}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
