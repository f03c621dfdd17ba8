"""Level 1: 2-D convolution in bf16 without a bias (F.conv2d(x, w, padding=1)): the f32
accumulator must still be rounded into the output (a bias-free low-precision conv once lost
that store, and its translation read an output that was never written)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N = 4
C = 16
H = 20
W = 12
K = 24


class Model(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(c_out, c_in, 3, 3, dtype=torch.bfloat16) * (9 * c_in) ** -0.5)

    def forward(self, x):
        return F.conv2d(x, self.weight, padding=1)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
