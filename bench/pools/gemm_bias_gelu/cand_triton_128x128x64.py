"""Pool gemm_bias_gelu: hand-written Triton GEMM with bias and erf GELU fused in its epilogue
(bench/pools/pool_triton.py), tile BM,BN,BK = 128,128,64, 4 warps, 4 stages."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, DIN, DOUT = 2, 2048, 4096, 8192
TILE, WARPS, STAGES = (128,128,64), 4, 4

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features, dtype=dtype) * in_features**-0.5)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=dtype) * 0.1)

    def forward(self, x):
        import pool_triton
        x2 = x.reshape(-1, x.shape[-1])
        y = pool_triton.matmul(x2, self.weight.t(), bias=self.bias, tile=TILE, num_warps=WARPS,
                               num_stages=STAGES)
        return y.view(*x.shape[:-1], -1)


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
