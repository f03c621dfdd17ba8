"""Runs the forward of examples/NAME.py on the GPU RUNS times, for an Nsight Compute export:

    ncu --csv --page raw --metrics gpu__time_duration.sum python3 bench/ncu_forward.py NAME [RUNS]

The CSV feeds `solar report` (docs/report.md); its rows are the kernels of every run.
"""
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
from measure import load  # noqa: E402


def main():
    name, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2
    mod = load(name)
    torch.manual_seed(0)
    model = mod.Model(*mod.get_init_inputs()).cuda()
    inputs = [x.cuda() for x in mod.get_inputs()]
    with torch.no_grad():
        for _ in range(runs):
            model(*inputs)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
