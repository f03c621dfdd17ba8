"""A bilinear form as one three-operand torch.einsum, f32 (bench/einsum.sh)."""
import torch
import torch.nn as nn

B, N, A, M = 1024, 512, 64, 512


class Model(nn.Module):
    def forward(self, x, w, y):
        return torch.einsum("bn,anm,bm->ba", x, w, y)


def get_inputs():
    return [torch.randn(B, N), torch.randn(A, N, M), torch.randn(B, M)]


def get_init_inputs():
    return []
