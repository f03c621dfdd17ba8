"""Level 1: 3-D convolution, 3x3x3 kernel, stride 2 in every axis, padding 1."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 32
DEPTH = 64
HEIGHT = 128
WIDTH = 256
KERNEL = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, stride=2, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL]
