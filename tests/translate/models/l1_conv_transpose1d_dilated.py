"""Level 1: transposed 1-D convolution, stride 3, dilation 2, padding 2, no bias."""
import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 16
LENGTH = 2048
KERNEL = 5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=3,
                                         padding=2, dilation=2, bias=False)

    def forward(self, x):
        return self.deconv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL]
