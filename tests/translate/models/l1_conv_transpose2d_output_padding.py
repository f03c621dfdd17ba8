"""Level 1: transposed 2-D convolution, stride 2, padding 1, output_padding 1, 3x3 kernel
(doubles the spatial size exactly)."""
import torch
import torch.nn as nn

BATCH = 16
IN_CHANNELS = 128
OUT_CHANNELS = 64
HEIGHT = 32
WIDTH = 256
KERNEL = 3


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride=2,
                                         padding=1, output_padding=1)

    def forward(self, x):
        return self.deconv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL]
