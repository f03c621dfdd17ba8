"""Pool reduction: a matrix-vector product with a ones vector (cuBLAS GEMV, fp32, TF32 off)."""
import torch
import torch.nn as nn

B, S, V = 4, 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        ones = torch.ones(x.shape[-1], dtype=x.dtype, device=x.device)
        return torch.matmul(x, ones)


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
