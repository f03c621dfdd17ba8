"""Pool gemm, reference: C = A @ B, bf16, M = N = K = 4096 (torch.matmul, cuBLAS)."""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
