"""Pool layernorm, deliberately poor: a Python loop over blocks of 512 rows, one F.layer_norm
launch per block, written into slices of the output."""
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

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        out = torch.empty_like(flat)
        for i in range(0, flat.shape[0], 512):
            out[i:i + 512] = F.layer_norm(flat[i:i + 512], self.weight.shape, self.weight, self.bias, self.eps)
        return out.view_as(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
