"""Pool softmax: hand-written Triton softmax (bench/pools/pool_triton.py): one program per row, the whole row (8192) in registers, 16 warps."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, V = 4, 4096, 8192
WARPS, ONLINE_BLOCK = 16, 0

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        import pool_triton
        return pool_triton.softmax(x, num_warps=WARPS, online_block=ONLINE_BLOCK)


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
