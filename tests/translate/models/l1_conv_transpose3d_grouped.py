"""Level 1: transposed 3-D convolution with 4 groups, stride (2, 2, 1), output_padding (1, 0, 0)."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 64
OUT_CHANNELS = 32
DEPTH = 16
HEIGHT = 256
WIDTH = 128
KERNEL = 3
GROUPS = 4


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, groups):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, kernel_size, stride=(2, 2, 1),
                                         padding=1, output_padding=(1, 0, 0), groups=groups)

    def forward(self, x):
        return self.deconv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL, GROUPS]
