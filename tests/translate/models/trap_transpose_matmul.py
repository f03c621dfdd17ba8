"""Trap: non-contiguous operands of a matmul, A^T @ B^T, from .t() and .transpose()."""
import torch
import torch.nn as nn

M = 1024
K = 512
N = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        # a is stored (K, M), b is stored (N, K): both are read transposed.
        return torch.matmul(a.t(), b.transpose(0, 1))


def get_inputs():
    return [torch.randn(K, M), torch.randn(N, K)]


def get_init_inputs():
    return []
