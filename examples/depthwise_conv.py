"""3x3 depthwise convolution (groups = C), stride 1, padding 1, no bias, f32 NCHW,
N=32 C=256 56x56.  AIR: depthwise_conv.air.

The weight has PyTorch's grouped layout [C, C/groups = 1, 3, 3].
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, H, W = 32, 256, 56, 56


class Model(nn.Module):
    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(channels, 1, kernel_size, kernel_size) / kernel_size)

    def forward(self, x):
        return F.conv2d(x, self.weight, stride=1, padding=1, groups=x.shape[1])


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float32)]


def get_init_inputs():
    return [C]
