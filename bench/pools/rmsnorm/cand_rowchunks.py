"""Pool rmsnorm, deliberately poor: a Python loop over blocks of 512 rows of the reference
computation (8 kernels per block)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096


class Model(nn.Module):
    def __init__(self, d, eps=1e-6, dtype=torch.bfloat16):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d, dtype=dtype))

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(flat)
        for i in range(0, flat.shape[0], 512):
            xf = flat[i:i + 512].float()
            y = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.eps)
            out[i:i + 512] = y.to(x.dtype) * self.weight
        return out.view_as(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
