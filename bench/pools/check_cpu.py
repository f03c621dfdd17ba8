"""Checks the candidate pools on the CPU, at small sizes, before they go to the GPU.

    /work/venv/bin/python bench/pools/check_cpu.py [--pools bench/pools] [--only P1,P2] [--triton] [--compile]

For each pool: pool.json against bench/pools/README.md's format (kinds, directions, parents that
lead back to ref, trajectories that follow the parent links, every cand_*.py listed); every
candidate declares the reference's sizes and get_inputs() shapes and dtypes; then each
candidate that runs on a CPU is built with the pool's `cpu_sizes` (module constants set before
get_init_inputs), run on the reference's inputs and compared with the reference's output at
the pool's tolerance (pools.compare: against the reference, or against the reference computed
in float64).  Triton candidates run under Triton's interpreter with --triton (slow),
torch.compile ones with --compile; SDPA candidates that force a CUDA-only backend
("needs_cuda": true) are listed as skipped; a candidate marked "expect_correct": false passes
the check when it does not match, and fails it when it does.  Exits 1 if any check fails.
"""
import argparse
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent


def patch_triton_interpreter():
    """Triton 3.5's interpreter turns a scalar into an index with int() of a 1-element numpy
    array, which NumPy 2.3+ refuses ("only 0-dimensional arrays can be converted to Python
    scalars"), so any `for ... in range(0, n, BLOCK)` with a runtime n fails under
    TRITON_INTERPRET=1.  The CPU check replaces that one conversion; GPU runs are untouched."""
    try:
        from triton.runtime import interpreter
    except ImportError:
        return
    original = getattr(interpreter, "_patch_lang_tensor", None)
    if original is None:
        return

    def patched(tensor):
        original(tensor)
        tensor.__index__ = lambda self: int(self.handle.data.reshape(-1)[0])

    interpreter._patch_lang_tensor = patched


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pools", default=str(HERE))
    ap.add_argument("--only", default="")
    ap.add_argument("--triton", action="store_true", help="run Triton candidates (TRITON_INTERPRET=1)")
    ap.add_argument("--compile", action="store_true", help="run torch.compile candidates")
    args = ap.parse_args()
    if args.triton:
        os.environ["TRITON_INTERPRET"] = "1"   # before anything imports triton
    sys.path.insert(0, str(HERE))
    import torch
    if args.triton:
        patch_triton_interpreter()
    import pools
    torch.set_num_threads(2)
    root = pathlib.Path(args.pools)
    only = [p for p in args.only.split(",") if p]
    folders = [root / p for p in only] if only else sorted(d for d in root.iterdir()
                                                           if (d / "pool.json").is_file())
    failed = 0
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for folder in folders:
        try:
            pool = pools.load_pool(folder)
        except pools.PoolError as e:
            print(f"FAIL {e}")
            failed += 1
            continue
        small = pool["cpu_sizes"]
        full_ref = pools.load_module(folder / pool["ref"])
        ref_sizes = pools.sizes_of(full_ref, small)
        ref_sig = pools.input_signature(torch, full_ref)
        ref_mod = pools.load_module(folder / pool["ref"], small)
        model, inputs = pools.build(torch, ref_mod, "cpu")
        with torch.no_grad():
            expect = model(*inputs)
        exact = pools.exact_output(torch, model, inputs)
        tol = pool["tolerance"]
        for c in pool["candidates"]:
            name = f"{folder.name}/{c['file']}"
            full = pools.load_module(folder / c["file"])
            problems = []
            if pools.sizes_of(full, small) != ref_sizes:
                problems.append(f"sizes {pools.sizes_of(full, small)} differ from ref's {ref_sizes}")
            if pools.input_signature(torch, full) != ref_sig:
                problems.append("get_inputs() shapes or dtypes differ from ref's")
            skip = None
            if pools.uses_triton(folder, c) and not args.triton:
                skip = "Triton (run with --triton)"
            elif c["kind"] == "compile" and not args.compile:
                skip = "torch.compile (run with --compile)"
            elif c.get("needs_cuda"):
                skip = "forces a CUDA-only SDPA backend"
            if problems:
                print(f"FAIL {name}: {'; '.join(problems)}")
                counts["fail"] += 1
                continue
            if skip:
                print(f"skip {name}: {skip}")
                counts["skip"] += 1
                continue
            t0 = time.time()
            try:
                cand, _ = pools.build(torch, pools.load_module(folder / c["file"], small), "cpu",
                                      with_inputs=False)
                with torch.no_grad():
                    out = cand(*[x.clone() if isinstance(x, torch.Tensor) else x for x in inputs])
                detail = {}
                ok, err, why = pools.compare(torch, out, expect, tol, exact, detail)
            except Exception as e:   # a candidate that raises is a failed check, not a crash
                ok, err, why = False, None, f"raised {type(e).__name__}: {str(e).splitlines()[0][:200]}"
            if c.get("expect_correct") is False:
                verdict, ok = (("pass (wrong, as pool.json expects)", True) if not ok else
                               ("FAIL (correct, but pool.json expects it wrong)", False))
            else:
                verdict = "pass" if ok else "FAIL"
            errs = f"max abs err {err:.2e}" if err is not None else ""
            if ok and detail.get("check") == "against float64":
                errs += (f" (correct against float64: {detail['max_err_f64']:.2e}, the reference's own "
                         f"{detail['ref_err_f64']:.2e})")
            print(f"{verdict} {name}: {errs} {why} ({time.time() - t0:.1f} s)".rstrip())
            counts["pass" if ok else "fail"] += 1
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped "
          f"in {len(folders)} pools")
    return 1 if failed or counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
