"""Pool elementwise, deliberately poor: the chain on transposed views with .contiguous() copies
in and out (two extra transposes of [S, D] per batch, strided elementwise kernels)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096


class Model(nn.Module):
    def __init__(self, d, dtype=torch.bfloat16):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(d, dtype=dtype))
        self.gamma = nn.Parameter(0.1 + 0.02 * torch.randn(d, dtype=dtype))

    def forward(self, x, residual):
        xt = x.transpose(-1, -2).contiguous()
        rt = residual.transpose(-1, -2).contiguous()
        y = rt + F.gelu(xt + self.bias[:, None]) * self.gamma[:, None]
        return y.transpose(-1, -2).contiguous()


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16), torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
