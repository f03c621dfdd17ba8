"""torch.diag(a) @ b (KernelBench level 1/12): translated as eager runs it, the N x N diagonal
matrix built by its own kernel and then a dense contraction over N (2 N^2 M flops), not as the
row scaling it amounts to; the rewrite is advise's to propose, not the translator's."""
import torch
import torch.nn as nn

N = 4096
M = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.diag(a) @ b


def get_inputs():
    return [torch.randn(N), torch.randn(N, M)]


def get_init_inputs():
    return []
