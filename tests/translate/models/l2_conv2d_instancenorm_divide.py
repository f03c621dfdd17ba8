"""Level 2: conv2d -> instance norm (affine) -> divide by a constant -> leaky relu."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 32
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 128
WIDTH = 256
DIVISOR = 2.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, divisor):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3)
        self.norm = nn.InstanceNorm2d(out_channels, affine=True)
        self.divisor = divisor

    def forward(self, x):
        return F.leaky_relu(self.norm(self.conv(x)) / self.divisor, 0.2)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, DIVISOR]
