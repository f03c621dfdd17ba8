"""Pool reduction: hand-written Triton row sum (bench/pools/pool_triton.py), one program per row,
4096-wide fp32 partial sums over the row, 8 warps."""
import pathlib
import sys

import torch
import torch.nn as nn

B, S, V = 4, 4096, 8192
BLOCK, WARPS = 4096, 8

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import pool_triton
        return pool_triton.row_sum(x, block=BLOCK, num_warps=WARPS)


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
