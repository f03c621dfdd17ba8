"""Level 1: 1x1 (pointwise) 2-D convolution: a matmul over channels in disguise."""
import torch
import torch.nn as nn

BATCH = 16
IN_CHANNELS = 256
OUT_CHANNELS = 512
HEIGHT = 64
WIDTH = 128


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
