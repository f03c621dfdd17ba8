"""Pool gemm_bias_gelu, reference: F.gelu(F.linear(x, W, b)) (erf GELU), bf16, x [2, 2048, 4096],
W [8192, 4096]: cuBLAS GEMM with the bias in its epilogue, then a GELU kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, DIN, DOUT = 2, 2048, 4096, 8192


class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features, dtype=dtype) * in_features**-0.5)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=dtype) * 0.1)

    def forward(self, x):
        return F.gelu(F.linear(x, self.weight, self.bias))


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
