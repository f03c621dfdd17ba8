"""Dropout (p = 0.3, training mode) and Gaussian noise in forward: the reference of the rand
cases (docs/validate.md, "Random numbers")."""
import torch
import torch.nn as nn

B = 16
N = 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.3)

    def forward(self, x):
        return self.drop(x) + torch.randn_like(x) * 0.1


def get_inputs():
    return [torch.randn(B, N)]


def get_init_inputs():
    return []
