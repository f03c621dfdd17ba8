"""Pool transpose: x.t().clone(memory_format=torch.contiguous_format)."""
import torch
import torch.nn as nn

M, N = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.t().clone(memory_format=torch.contiguous_format)


def get_inputs():
    return [torch.randn(M, N, dtype=torch.float32)]


def get_init_inputs():
    return []
