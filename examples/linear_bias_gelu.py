"""nn.Linear(4096, 16384) + nn.GELU() (erf form), bf16.  AIR: linear_bias_gelu.air.

The parameters are `weight` [out_features, in_features] and `bias` [out_features], as in
nn.Linear, held directly by the module so that their names match the AIR tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, DIN, DOUT = 4, 2048, 4096, 16384


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
