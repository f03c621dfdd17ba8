"""Level 1: 3-D convolution, kernel (3, 5, 1), dilation (2, 1, 1), padding (2, 2, 0), 2 groups."""
import torch
import torch.nn as nn

BATCH = 4
IN_CHANNELS = 32
OUT_CHANNELS = 64
DEPTH = 16
HEIGHT = 256
WIDTH = 128


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, (3, 5, 1), dilation=(2, 1, 1),
                              padding=(2, 2, 0), groups=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
