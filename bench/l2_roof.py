"""Checks the derived L2 bandwidth roof against L2-resident kernels on a CUDA GPU.

    python3 bench/l2_roof.py [devices/h200-sxm.json]

docs/bounds.md, rule "L2 bandwidth": a descriptor's memory.l2.bandwidth_bytes_per_s is
SMs x 128 B/clk x the maximum SM clock, a per-direction limit.  No kernel may move L2-resident
data faster.  This script times kernels whose data fits in L2 (buffers of 8 to 48 MiB, re-read
back to back without a flush, so every run after the first finds its data in L2):
  - read: buf.sum() (reads only), bytes = buffer size;
  - copy: out.copy_(buf), read and write bytes counted apart (the roof is per direction, so
    the larger of the two is compared);
  - read with Triton, L1-bypassing loads (the 8.6 TB/s of ../shared/reference/devices.md), when
    Triton is installed.
Each is the best of RUNS runs after WARMUP warm-ups (CUDA events).  It prints every rate, the
roof, and exits 1 when a rate exceeds the roof (the roof would be wrong).
"""
import json
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
WARMUP, RUNS, REPS = 5, 20, 10


def best_time(fn):
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(RUNS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(REPS):
            fn()
        e.record()
        torch.cuda.synchronize()
        best = min(best, s.elapsed_time(e) * 1e-3 / REPS)
    return best


def triton_read(buf):
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def read(x, out, n, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        v = tl.load(x + offs, mask=offs < n, other=0.0, cache_modifier=".cg")
        tl.store(out + pid, tl.sum(v, axis=0))

    n = buf.numel()
    block = 8192
    grid = (triton.cdiv(n, block),)
    out = torch.empty(grid[0], device="cuda", dtype=buf.dtype)
    return lambda: read[grid](buf, out, n, BLOCK=block)


def main():
    dev = json.loads((ROOT / (sys.argv[1] if len(sys.argv) > 1 else "devices/h200-sxm.json"))
                     .read_text())
    roof = next(m for m in dev["memory"] if m["level"] == "l2")["bandwidth_bytes_per_s"]["value"]
    props = torch.cuda.get_device_properties(0)
    print(f"{props.name}: {props.multi_processor_count} SMs, L2 {props.L2_cache_size >> 20} MiB;"
          f" roof {roof / 1e12:.2f} TB/s ({dev['name']})")
    worst = 0.0
    for mib in (8, 16, 24, 32, 48):
        n = (mib << 20) // 4
        buf = torch.randn(n, device="cuda")
        out = torch.empty_like(buf)
        cases = [("read sum", lambda: buf.sum(), buf.nbytes),
                 ("copy (per direction)", lambda: out.copy_(buf), buf.nbytes)]
        tr = triton_read(buf)
        if tr:
            cases.append(("read triton .cg", tr, buf.nbytes))
        for label, fn, nbytes in cases:
            rate = nbytes / best_time(fn)
            worst = max(worst, rate)
            print(f"  {mib:3d} MiB {label:22s} {rate / 1e12:6.2f} TB/s  {rate / roof:.2f} of roof")
    print(f"fastest {worst / 1e12:.2f} TB/s = {worst / roof:.2f} of the roof")
    return 1 if worst > roof else 0


if __name__ == "__main__":
    sys.exit(main())
