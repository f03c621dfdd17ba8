"""Level 1: 2-D convolution with stride 2, dilation 2 and padding 2 (3x3 kernel)."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 32
OUT_CHANNELS = 64
HEIGHT = 512
WIDTH = 256
KERNEL = 3
STRIDE = 2
DILATION = 2
PADDING = 2


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, dilation, padding):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride,
                              padding=padding, dilation=dilation)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL, STRIDE, DILATION, PADDING]
