"""torch.matmul on bf16 matrices, 8192 x 8192 x 8192.  AIR: matmul_bf16.air."""
import torch
import torch.nn as nn

M, N, K = 8192, 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
