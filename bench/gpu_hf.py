"""Times the models of `solar translate --hf` on a CUDA GPU, for the soundness check of their
bounds (docs/llm.md, "Measured").

    python3 bench/gpu_hf.py OUT.json MODEL.py ...

Each MODEL.py is a model file that `solar translate --hf CONFIG.json` wrote beside its AIR
(the reference its translation was validated against: transformers' model with random weights,
bf16, SDPA attention with no mask tensor, as transformers runs it on a GPU with no padding).
It is built on the GPU and its forward timed, as solar validate's harness times a reference
(validate/harness.py time_torch_cuda, CUDA events) under both protocols: cold (the L2 flushed
before each run; compared with `--l2 cold` bounds) and warm (back to back; compared with the
default bounds).  The minimum over the runs is what a bound must stay below.  A model that
fails to build or run is recorded with its error, never skipped silently.
"""
import importlib.util
import json
import pathlib
import sys
import time
import traceback

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "validate"))
from harness import time_torch_cuda  # noqa: E402

WARMUP, RUNS = 2, 10


def load(path):
    spec = importlib.util.spec_from_file_location(pathlib.Path(path).stem.replace(".", "_"), path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def one(path):
    t0 = time.time()
    mod = load(path)
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = mod.Model()
        inputs = mod.get_inputs()
    built = time.time() - t0

    def fn():
        return model(*inputs)
    cold = time_torch_cuda(torch, fn, WARMUP, RUNS)
    warm = time_torch_cuda(torch, fn, WARMUP, RUNS, flush_l2=False)
    sizes = {k: getattr(mod, k) for k in ("BATCH", "SEQ", "CONTEXT", "LAYERS") if hasattr(mod, k)}
    del model, inputs
    torch.cuda.empty_cache()
    return {"model": str(path), "sizes": sizes, "build_s": round(built, 1),
            "cold": {"median_s": cold["time_s"], "min_s": cold["min_s"]},
            "warm": {"median_s": warm["time_s"], "min_s": warm["min_s"]}}


def main(argv):
    out, paths = argv[0], argv[1:]
    import transformers
    res = {"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
           "transformers": transformers.__version__, "runs": RUNS, "warmup": WARMUP, "cases": []}
    for p in paths:
        try:
            r = one(p)
        except Exception as e:  # noqa: BLE001 - recorded, the next model runs
            r = {"model": p, "error": f"{type(e).__name__}: {e}",
                 "trace": traceback.format_exc()[-2000:]}
            torch.cuda.empty_cache()
        res["cases"].append(r)
        print(json.dumps(r)[:300], flush=True)
        with open(out, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
