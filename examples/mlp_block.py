"""Transformer MLP: Linear(d, 4d) -> GELU (erf form) -> Linear(4d, d), bf16, d = 2048.
AIR: mlp_block.air.

The parameters w1, b1 (fc1) and w2, b2 (fc2) have nn.Linear's layout, [out_features,
in_features], and are held directly by the module so that their names match the AIR tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 4, 2048, 2048


class Model(nn.Module):
    def __init__(self, d_model, dtype=torch.bfloat16):
        super().__init__()
        hidden = 4 * d_model
        self.w1 = nn.Parameter(torch.randn(hidden, d_model, dtype=dtype) * d_model**-0.5)
        self.b1 = nn.Parameter(torch.randn(hidden, dtype=dtype) * 0.1)
        self.w2 = nn.Parameter(torch.randn(d_model, hidden, dtype=dtype) * hidden**-0.5)
        self.b2 = nn.Parameter(torch.randn(d_model, dtype=dtype) * 0.1)

    def forward(self, x):
        h = F.linear(x, self.w1, self.b1)
        g = F.gelu(h)
        return F.linear(g, self.w2, self.b2)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
