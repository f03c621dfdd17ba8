"""nn.LayerNorm(4096) (eps 1e-5, with weight and bias), bf16, on [8, 2048, 4096].
AIR: layernorm.air."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 2048, 4096


class Model(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5, dtype=torch.bfloat16):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(normalized_shape, dtype=dtype))
        self.bias = nn.Parameter(0.1 * torch.randn(normalized_shape, dtype=dtype))

    def forward(self, x):
        return F.layer_norm(x, self.weight.shape, self.weight, self.bias, self.eps)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
