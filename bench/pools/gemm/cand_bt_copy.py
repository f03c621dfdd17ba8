"""Pool gemm, deliberately poor: copies B into a transposed contiguous buffer every call
(b.t().contiguous(), an extra read and write of B) and multiplies by its transpose view."""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        bt = b.t().contiguous()
        return torch.matmul(a, bt.t())


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
