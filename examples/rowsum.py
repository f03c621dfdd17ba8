"""torch.sum(x, dim=1) over an f32 [16384, 4096] matrix.  AIR: rowsum.air."""
import torch
import torch.nn as nn

M, N = 16384, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(M, N, dtype=torch.float32)]


def get_init_inputs():
    return []
