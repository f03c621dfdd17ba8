"""Pool mlp: fc1 as a hand-written Triton GEMM with bias + GELU fused into its epilogue
(bench/pools/pool_triton.py, tile 128x256x64), fc2 through cuBLAS: the [tokens, 4d] hidden
activation is written once instead of twice."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 4, 2048, 2048
TILE, WARPS, STAGES = (128, 256, 64), 8, 3

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self, d_model, dtype=torch.bfloat16):
        super().__init__()
        hidden = 4 * d_model
        self.w1 = nn.Parameter(torch.randn(hidden, d_model, dtype=dtype) * d_model**-0.5)
        self.b1 = nn.Parameter(torch.randn(hidden, dtype=dtype) * 0.1)
        self.w2 = nn.Parameter(torch.randn(d_model, hidden, dtype=dtype) * hidden**-0.5)
        self.b2 = nn.Parameter(torch.randn(d_model, dtype=dtype) * 0.1)

    def forward(self, x):
        import pool_triton
        x2 = x.reshape(-1, x.shape[-1])
        h = pool_triton.matmul(x2, self.w1.t(), bias=self.b1, tile=TILE, num_warps=WARPS, num_stages=STAGES)
        return F.linear(h, self.w2, self.b2).view_as(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
