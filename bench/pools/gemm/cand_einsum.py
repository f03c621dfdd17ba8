"""Pool gemm: torch.einsum("mk,kn->mn") (eager; einsum dispatches to a bmm of one batch)."""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.einsum("mk,kn->mn", a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
