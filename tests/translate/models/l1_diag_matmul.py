"""Level 1: diag(a) @ B: a diagonal matrix built from a vector times a dense matrix (a row
scaling in disguise; the diagonal matrix itself is N x N, mostly zeros)."""
import torch
import torch.nn as nn

N = 4096
M = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.diag(a) @ b


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []
