"""Times the eager PyTorch original of each example on a CUDA GPU and lists its kernels.

    python3 examples/measure.py [NAME ...]        (default: every examples/*.py model)

For each NAME it builds Model(*get_init_inputs()) and get_inputs() at the AIR's default sizes,
moves both to the GPU, runs forward() under torch.no_grad() three times to warm up, then 20
times, each timed alone with CUDA events, and prints the median (the number to pass to
`solar analyze --measured`), the fastest run, and the kernels one forward launched, with their
device times from torch.profiler.
"""
import importlib.util
import pathlib
import sys

import torch
from torch.profiler import ProfilerActivity, profile

HERE = pathlib.Path(__file__).resolve().parent


def load(name):
    spec = importlib.util.spec_from_file_location(name, HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def measure(name, warmup=3, runs=20):
    mod = load(name)
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda()
    inputs = [x.cuda() for x in mod.get_inputs()]
    with torch.no_grad():
        for _ in range(warmup):
            model(*inputs)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            model(*inputs)
            torch.cuda.synchronize()
        ms = []
        for _ in range(runs):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize()
            ms.append(start.elapsed_time(end))
    ms.sort()
    median = (ms[(runs - 1) // 2] + ms[runs // 2]) / 2
    kernels = [(e.name, e.device_time) for e in prof.events() if e.device_type.name == "CUDA"]
    return median, ms[0], kernels


def main(names):
    names = names or sorted(p.stem for p in HERE.glob("*.py") if p.stem != "measure")
    print(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}")
    for name in names:
        median, best, kernels = measure(name)
        print(f"{name}: median {median:.3f} ms, min {best:.3f} ms, {len(kernels)} kernels")
        for kname, us in kernels:
            print(f"    {us:9.1f} us  {kname[:120]}")
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main(sys.argv[1:])
