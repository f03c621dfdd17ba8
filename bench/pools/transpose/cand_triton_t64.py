"""Pool transpose: hand-written tiled Triton transpose (bench/pools/pool_triton.py), 64 x 64 tiles
read along rows and written transposed through tl.trans, 8 warps."""
import pathlib
import sys

import torch
import torch.nn as nn

M, N = 8192, 8192
TILE, WARPS = 64, 8

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import pool_triton
        return pool_triton.transpose(x, tile=TILE, num_warps=WARPS)


def get_inputs():
    return [torch.randn(M, N, dtype=torch.float32)]


def get_init_inputs():
    return []
