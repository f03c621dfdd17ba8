"""Pool elementwise: the whole chain fused into one hand-written Triton kernel
(bench/pools/pool_triton.py), fp32 math, 1024 elements per program, 4 warps: x and residual read
once, the output written once."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096
BLOCK, WARPS = 1024, 4

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self, d, dtype=torch.bfloat16):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(d, dtype=dtype))
        self.gamma = nn.Parameter(0.1 + 0.02 * torch.randn(d, dtype=dtype))

    def forward(self, x, residual):
        import pool_triton
        return pool_triton.bias_gelu_scale_residual(x, residual, self.bias, self.gamma, block=BLOCK,
                                                    num_warps=WARPS)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16), torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
