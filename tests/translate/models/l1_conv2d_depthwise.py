"""Level 1: depthwise 2-D convolution (groups == in_channels == out_channels), 5x5, stride 2."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 128
HEIGHT = 256
WIDTH = 512
KERNEL = 5


class Model(nn.Module):
    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size, stride=2, padding=2,
                              groups=channels, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS, KERNEL]
