"""Pool rmsnorm: hand-written Triton RMS norm (bench/pools/pool_triton.py), one program per
row, the row of 4096 in registers, fp32 statistics, 16 warps."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096
WARPS = 16

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self, d, eps=1e-6, dtype=torch.bfloat16):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d, dtype=dtype))

    def forward(self, x):
        import pool_triton
        return pool_triton.norm(x, self.weight, None, self.eps, num_warps=WARPS)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
