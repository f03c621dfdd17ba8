"""torch.matmul on f32 matrices, 4096 x 4096 x 4096.  AIR: matmul_f32.air.

PyTorch's default float32 matmul precision is "highest", so cuBLAS runs a true f32 GEMM.
"""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=torch.float32), torch.randn(K, N, dtype=torch.float32)]


def get_init_inputs():
    return []
