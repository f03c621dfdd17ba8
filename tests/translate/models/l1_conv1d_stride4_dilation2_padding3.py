"""Level 1: 1-D convolution with stride 4, dilation 2, padding 3 and no bias."""
import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 16
OUT_CHANNELS = 64
LENGTH = 8192
KERNEL = 5
STRIDE = 4
DILATION = 2
PADDING = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride, dilation, padding):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride,
                              padding=padding, dilation=dilation, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL, STRIDE, DILATION, PADDING]
