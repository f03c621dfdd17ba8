"""Times every example on a CUDA GPU for the soundness check of solar's bounds.

    python3 bench/soundness.py OUT.json [NAME ...]
    python3 bench/soundness.py --train OPTIMIZER [--loss sum|output] OUT.json FILE.py ...

--train times the training step of each model FILE.py (an example or any model file of the
KernelBench convention), as `solar translate --train --loss LOSS --optimizer OPTIMIZER` (none,
sgd or adamw) translates it: forward, the loss (sum: the sum of the floating outputs; output:
the scalar forward returns), torch.autograd.grad of the parameters that require grad, and
torch.optim's foreach step (its state made by a first step, in the warm-ups); timed as below,
cold and warm.

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


def train_step(model, inputs, optimizer, loss_mode="sum"):
    """The step `solar translate --train` translates, as a function for time_fn (which runs
    it under no_grad: the step turns grad on itself)."""
    params = [p for p in model.parameters() if p.requires_grad]
    opt = None
    if optimizer == "adamw":
        opt = torch.optim.AdamW(params, foreach=True)
    elif optimizer == "sgd":
        opt = torch.optim.SGD(params, foreach=True)

    def step():
        with torch.enable_grad():
            out = model(*inputs)
            outs = out if isinstance(out, (list, tuple)) else [out]
            loss = outs[0] if loss_mode == "output" else None
            for o in outs if loss_mode == "sum" else []:
                if isinstance(o, torch.Tensor) and o.is_floating_point():
                    loss = o.sum() if loss is None else loss + o.sum()
            grads = torch.autograd.grad(loss, params, allow_unused=True)
        if opt is not None:
            for p, g in zip(params, grads):
                p.grad = g
            opt.step()
            for p in params:
                p.grad = None
        return grads
    return step


def main_train(optimizer, out, files, loss_mode="sum"):
    import importlib.util
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "cuda": torch.version.cuda, "optimizer": optimizer, "loss": loss_mode,
              "flags": {"matmul_allow_tf32": False, "cudnn_allow_tf32": True},
              "warmup": WARMUP, "runs": RUNS, "l2_flush_bytes": L2_FLUSH_BYTES, "steps": {}}
    for f in files:
        name = pathlib.Path(f).stem
        try:
            spec = importlib.util.spec_from_file_location(name, f)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            torch.manual_seed(0)
            init = mod.get_init_inputs() if hasattr(mod, "get_init_inputs") else []
            model = mod.Model(*init).cuda()
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
            entry = {"train_step": dict(time_fn(train_step(model, inputs, optimizer, loss_mode)),
                                        math="default")}
        except Exception as e:  # noqa: BLE001 - a model that does not run here is reported
            entry = {"error": f"{type(e).__name__}: {str(e)[:200]}"}
        result["steps"][name] = entry
        print(name, json.dumps(entry), flush=True)
        model = inputs = None
        torch.cuda.empty_cache()
        out.write_text(json.dumps(result, indent=1))


def main():
    if sys.argv[1] == "--train":
        rest, loss_mode = sys.argv[3:], "sum"
        if rest[:1] == ["--loss"]:
            loss_mode, rest = rest[1], rest[2:]
        return main_train(sys.argv[2], pathlib.Path(rest[0]), rest[1:], loss_mode)
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
