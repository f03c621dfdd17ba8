"""Level 1: 2-D convolution with a 3x7 kernel, stride (1, 2), padding (1, 3), dilation (2, 1):
every spatial parameter differs between the two axes."""
import torch
import torch.nn as nn

BATCH = 16
IN_CHANNELS = 32
OUT_CHANNELS = 64
HEIGHT = 128
WIDTH = 512
KERNEL_H = 3
KERNEL_W = 7


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_h, kernel_w):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (kernel_h, kernel_w), stride=(1, 2),
                              padding=(1, 3), dilation=(2, 1))

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, KERNEL_H, KERNEL_W]
