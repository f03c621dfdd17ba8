"""ResNet stem: 7x7 convolution, stride 2, padding 3, no bias, f32 NCHW, N=32 C=3 K=64
224x224 -> 112x112.  AIR: conv2d_7x7_s2.air.

cuDNN runs it with TF32 (torch.backends.cudnn.allow_tf32 is True by default).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, K, H, W = 32, 3, 64, 224, 224


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=7):
        super().__init__()
        fan_in = in_channels * kernel_size * kernel_size
        self.weight = nn.Parameter(
            torch.randn(out_channels, in_channels, kernel_size, kernel_size) * fan_in**-0.5)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=2, padding=3)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float32)]


def get_init_inputs():
    return [C, K]
