"""Measures the SM clock while the tensor cores work, for docs/bounds.md rule "clock domains".

    python3 bench/clock_probe.py [OUT.json]

NVIDIA quotes H100/H200 tensor peaks at 1830 MHz while the SM clock goes to 1980 MHz.  solar's
default bound assumes the tensor cores can run at the SM maximum (1070.5 TFLOP/s bf16 dense on
132 SMs).  This script checks that assumption on the GPU it runs on, without changing any clock
setting:

  1. In-kernel: a Triton kernel, one program per SM, runs a chain of bf16 tl.dot on operands that
     stay on chip (no memory traffic in the loop) and reads %clock64 and %globaltimer at both
     ends.  Cycles / nanoseconds is the SM clock while the tensor cores were busy; FLOP / cycles
     / programs is the dense bf16 work per clock per SM (4096 on Hopper at full rate).  Short
     bursts (few iterations) show the clock before power management reacts; long ones the
     sustained clock.
  2. cuBLAS: bf16 matmuls of several sizes, CUDA events, the best of 20 runs, as TFLOP/s, next to
     the clock the driver reports during the run (pynvml when installed).

A run that shows an SM clock above 1830 MHz with the tensor cores at their full per-clock rate is
one the 989.4 TFLOP/s datasheet figure does not bound; no result may exceed 1070.5 TFLOP/s (the
default bound's rate) on an H100/H200 SXM.  Not yet run: written without a GPU at hand.
"""
import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def _dot_chain(out_ptr, clk_ptr, ITERS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
               BK: tl.constexpr):
    pid = tl.program_id(0)
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    # Operands made on chip from the program id: nothing is loaded inside the timed loop.
    a = ((rm[:, None] + rk[None, :] + pid) % 7).to(tl.bfloat16) * 0.01
    b = ((rk[:, None] * 3 + rn[None, :]) % 5).to(tl.bfloat16) * 0.01
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    t0 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                   is_pure=False, pack=1)
    c0 = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64,
                                   is_pure=False, pack=1)
    for _ in range(ITERS):
        acc = tl.dot(a, b, acc)  # each dot depends on the previous one through acc
    c1 = tl.inline_asm_elementwise("mov.u64 $0, %clock64;", "=l", [], dtype=tl.int64,
                                   is_pure=False, pack=1)
    t1 = tl.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [], dtype=tl.int64,
                                   is_pure=False, pack=1)
    tl.store(out_ptr + pid, tl.sum(acc))
    tl.store(clk_ptr + pid * 2, c1 - c0)
    tl.store(clk_ptr + pid * 2 + 1, t1 - t0)


def in_kernel(sms, iters, bm=128, bn=128, bk=64):
    out = torch.empty(sms, device="cuda", dtype=torch.float32)
    clk = torch.empty(sms * 2, device="cuda", dtype=torch.int64)
    _dot_chain[(sms,)](out, clk, ITERS=iters, BM=bm, BN=bn, BK=bk, num_warps=8)
    torch.cuda.synchronize()
    c = clk.view(sms, 2).cpu().double()
    cycles, ns = c[:, 0], c[:, 1]
    flop = 2.0 * bm * bn * bk * iters
    return {
        "iters": iters,
        "sm_clock_mhz_median": float((cycles / ns).median() * 1e3),
        "sm_clock_mhz_max": float((cycles / ns).max() * 1e3),
        "flop_per_clk_per_sm_median": float((flop / cycles).median()),
        "tflops_while_running": float(flop * sms / ns.max() / 1e3),
    }


def nvml_clock():
    try:
        import pynvml
        pynvml.nvmlInit()
        h = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        return pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM)
    except Exception:  # pynvml missing or no permission: the clock is simply not reported
        return None


def cublas(n, runs=20):
    a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        a @ b
    best = float("inf")
    clocks = []
    for _ in range(runs):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        a @ b
        e.record()
        clocks.append(nvml_clock())
        torch.cuda.synchronize()
        best = min(best, s.elapsed_time(e) / 1e3)
    return {"n": n, "best_s": best, "tflops": 2.0 * n ** 3 / best / 1e12,
            "sm_clock_mhz_reported": [c for c in clocks if c is not None][:5]}


def main():
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count
    res = {"device": props.name, "sms": sms, "in_kernel": [], "cublas": []}
    for iters in (64, 512, 4096, 32768):
        res["in_kernel"].append(in_kernel(sms, iters))
        print(res["in_kernel"][-1], flush=True)
    for n in (1024, 2048, 4096, 8192):
        res["cublas"].append(cublas(n))
        print(res["cublas"][-1], flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
