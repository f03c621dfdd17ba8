"""Pool gemm_bias_gelu: torch.addmm(b, x2d, W.t()) then GELU (the library GEMM+bias on 2D)."""
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
        x2 = x.reshape(-1, x.shape[-1])
        y = torch.addmm(self.bias, x2, self.weight.t())
        return F.gelu(y).view(*x.shape[:-1], -1)


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
