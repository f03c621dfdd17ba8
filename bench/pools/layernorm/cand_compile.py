"""Pool layernorm: the hand-written layer norm of cand_manual.py under torch.compile (Inductor
fuses it into one Triton reduction kernel; compile time is paid once, at the first call)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096


class Model(nn.Module):
    def __init__(self, d, eps=1e-5, dtype=torch.bfloat16):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d, dtype=dtype))
        self.bias = nn.Parameter(0.1 * torch.randn(d, dtype=dtype))
        self.fn = torch.compile(self.manual, dynamic=False)

    def manual(self, x):
        xf = x.float()
        mean = xf.mean(dim=-1, keepdim=True)
        xc = xf - mean
        var = (xc * xc).mean(dim=-1, keepdim=True)
        y = xc * torch.rsqrt(var + self.eps)
        return (y * self.weight.float() + self.bias.float()).to(x.dtype)

    def forward(self, x):
        return self.fn(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
