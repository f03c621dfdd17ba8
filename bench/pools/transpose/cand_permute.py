"""Pool transpose: x.permute(1, 0).contiguous() (the same copy kernel)."""
import torch
import torch.nn as nn

M, N = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.permute(1, 0).contiguous()


def get_inputs():
    return [torch.randn(M, N, dtype=torch.float32)]


def get_init_inputs():
    return []
