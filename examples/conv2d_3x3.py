"""3x3 convolution, stride 1, padding 1, no bias, f32 NCHW, N=32 C=K=128 56x56.
AIR: conv2d_3x3.air.

cuDNN runs it with TF32 (torch.backends.cudnn.allow_tf32 is True by default).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, K, H, W = 32, 128, 128, 56, 56


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3):
        super().__init__()
        fan_in = in_channels * kernel_size * kernel_size
        self.weight = nn.Parameter(
            torch.randn(out_channels, in_channels, kernel_size, kernel_size) * fan_in**-0.5)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=1, padding=1)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float32)]


def get_init_inputs():
    return [C, K]
