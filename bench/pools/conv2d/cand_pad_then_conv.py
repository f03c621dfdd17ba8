"""Pool conv2d: explicit zero padding (F.pad, a padded copy of x), then an unpadded conv."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, H, W, K = 64, 128, 56, 56, 128


class Model(nn.Module):
    def __init__(self, c_in, c_out, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(c_out, c_in, 3, 3, dtype=dtype) * (9 * c_in) ** -0.5)
        self.bias = nn.Parameter(torch.randn(c_out, dtype=dtype) * 0.1)

    def forward(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1)), self.weight, self.bias)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
