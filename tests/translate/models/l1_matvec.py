"""Level 1: matrix times vector, (M, K) @ (K,) -> (M,)."""
import torch
import torch.nn as nn

M = 8192
K = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, v):
        return torch.matmul(a, v)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K)]


def get_init_inputs():
    return []
