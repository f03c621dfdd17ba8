"""Pool gemm_bias_gelu: matmul, bias add and GELU as three kernels (the bias is not in the
GEMM epilogue: one more write and read of the [M, N] output)."""
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
        y = torch.matmul(x, self.weight.t())
        y = y + self.bias
        return F.gelu(y)


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
