"""Level 1: torch.addmm with a learned bias row broadcast over the rows."""
import torch
import torch.nn as nn

M = 512
K = 1024
N = 256


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, a, b):
        return torch.addmm(self.bias, a, b)


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return [N]
