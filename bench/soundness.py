"""Times every example on a CUDA GPU for the soundness check of solar's bounds.

    python3 bench/soundness.py OUT.json [NAME ...]

For each examples/NAME.py it times, at the AIR's default sizes:
  - eager:  Model(*get_init_inputs())(*get_inputs()) with PyTorch's default math flags
            (matmul TF32 off, cuDNN TF32 on), recorded in the output;
  - the best library path where one exists: SDPA (flash attention) for attention,
    torch.matmul with TF32 on for f32 matmul (compared with the `--math tf32` bound),
    torch.compile for the language-model pieces (COMPILED), and cuBLAS/cuDNN otherwise
    (eager already is).
Each path is timed under both protocols (docs/bounds.md, rule "L2 state"):
  - cold: the L2 flushed before every run (a 512 MiB buffer is overwritten, the harness's
    timing, as solar validate does), so inputs start in DRAM; compared with `--l2 cold` bounds;
  - warm: the same runs back to back without a flush, so the L2 holds what the previous run
    left; compared with the default `--l2 warm` bounds.
Each time is the median of RUNS runs after WARMUP warm-ups, one CUDA-event pair per run; the
minimum over runs is recorded too: the bound must stay below it.  Top-level median_s/min_s of
a path are the cold ones (the format bench/results/soundness-h200-2026-11-29.json has).
"""
import json
import pathlib
import sys

import torch
import torch.nn.functional as F

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(ROOT / "validate"))
from harness import L2_FLUSH_BYTES, time_torch_cuda  # noqa: E402
from measure import load  # noqa: E402

WARMUP, RUNS = 3, 15
# examples whose torch.compile'd form is timed too: the language-model pieces whose eager
# form launches several kernels (the cross-entropy's cast, log-softmax and pick)
COMPILED = ("embedding", "cross_entropy", "moe_layer")


def time_fn(fn):
    """Both protocols: cold is the harness's timing (solar validate measures the same way), L2
    flushed before each run, CUDA events, median and minimum; warm has no flush."""
    t = time_torch_cuda(torch, fn, WARMUP, RUNS)
    w = time_torch_cuda(torch, fn, WARMUP, RUNS, flush_l2=False)
    return {"median_s": t["time_s"], "min_s": t["min_s"],
            "warm": {"median_s": w["time_s"], "min_s": w["min_s"]}}


def extra_paths(name, mod, model, inputs):
    """Best library paths beyond eager, as (label, math, fn)."""
    paths = []
    if name.startswith("attention"):
        causal = name == "attention_causal"
        q, k, v = inputs

        def sdpa():
            with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

        paths.append(("sdpa_flash", "strict", sdpa))
    if name == "matmul_f32":
        a, b = inputs

        def tf32():
            torch.backends.cuda.matmul.allow_tf32 = True
            try:
                return torch.matmul(a, b)
            finally:
                torch.backends.cuda.matmul.allow_tf32 = False

        paths.append(("cublas_tf32", "tf32", tf32))
    if name in COMPILED:  # Inductor fuses what eager runs as several kernels
        compiled = torch.compile(model)
        paths.append(("compiled", "default", lambda: compiled(*inputs)))
    return paths


def main():
    out = pathlib.Path(sys.argv[1])
    names = sys.argv[2:] or sorted(p.stem for p in (ROOT / "examples").glob("*.py")
                                   if p.stem != "measure")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    result = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "flags": {"matmul_allow_tf32": False, "cudnn_allow_tf32": True},
        "warmup": WARMUP, "runs": RUNS, "l2_flush_bytes": L2_FLUSH_BYTES,
        "examples": {},
    }
    for name in names:
        mod = load(name)
        torch.manual_seed(0)
        model = mod.Model(*mod.get_init_inputs()).cuda()
        inputs = [x.cuda() for x in mod.get_inputs()]
        entry = {"eager": dict(time_fn(lambda: model(*inputs)), math="default")}
        for label, mathmode, fn in extra_paths(name, mod, model, inputs):
            try:
                entry[label] = dict(time_fn(fn), math=mathmode)
            except Exception as e:  # a path that does not run here is reported, not fatal
                entry[label] = {"error": str(e)[:200]}
        result["examples"][name] = entry
        print(name, json.dumps(entry), flush=True)
        del model, inputs
        torch.cuda.empty_cache()
    out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
