"""Pool transpose, deliberately poor: a Triton kernel with one program per 1024 outputs, each
output element reading x at stride N (uncoalesced reads; bench/pools/pool_triton.py)."""
import pathlib
import sys

import torch
import torch.nn as nn

M, N = 8192, 8192
WARPS = 4

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import pool_triton
        return pool_triton.transpose(x, num_warps=WARPS, strided=True)


def get_inputs():
    return [torch.randn(M, N, dtype=torch.float32)]


def get_init_inputs():
    return []
