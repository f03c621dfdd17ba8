"""Pool gemm: hand-written Triton matmul (bench/pools/pool_triton.py), tile BM,BN,BK = 64,64,32,
4 warps, 4 stages; fp32 accumulation, grouped launch order."""
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

M, N, K = 4096, 4096, 4096
TILE, WARPS, STAGES = (64,64,32), 4, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        import pool_triton
        return pool_triton.matmul(a, b, tile=TILE, num_warps=WARPS, num_stages=STAGES)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
