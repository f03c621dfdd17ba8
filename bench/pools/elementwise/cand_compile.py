"""Pool elementwise: the reference chain under torch.compile (Inductor fuses the four ops into
one Triton kernel; compiled at the first call)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096


class Model(nn.Module):
    def __init__(self, d, dtype=torch.bfloat16):
        super().__init__()
        self.bias = nn.Parameter(0.1 * torch.randn(d, dtype=dtype))
        self.gamma = nn.Parameter(0.1 + 0.02 * torch.randn(d, dtype=dtype))
        self.fn = torch.compile(self.chain, dynamic=False)

    def chain(self, x, residual):
        return residual + F.gelu(x + self.bias) * self.gamma

    def forward(self, x, residual):
        return self.fn(x, residual)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16), torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
