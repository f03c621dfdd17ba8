"""Pool conv2d: the input and weight converted to channels_last (NHWC) every call, the
tensor-core-native layout of cuDNN (two small copies; the output stays channels_last)."""
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
        xl = x.contiguous(memory_format=torch.channels_last)
        wl = self.weight.contiguous(memory_format=torch.channels_last)
        return F.conv2d(xl, wl, self.bias, padding=1)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
