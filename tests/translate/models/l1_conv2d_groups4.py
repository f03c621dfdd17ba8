"""Level 1: grouped 2-D convolution, 4 groups, channel multiplier 2 (64 -> 128)."""
import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 128
HEIGHT = 256
WIDTH = 512
KERNEL = 3
GROUPS = 4


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, groups=groups)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL, GROUPS]
