"""Level 2: conv2d (stride 2) -> subtract a scalar -> tanh -> subtract a per-channel bias ->
avgpool 2x2."""
import torch
import torch.nn as nn

BATCH = 32
IN_CHANNELS = 16
OUT_CHANNELS = 64
HEIGHT = 256
WIDTH = 512
SHIFT = 0.5


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, shift):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1)
        self.shift = shift
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1))
        self.pool = nn.AvgPool2d(2)

    def forward(self, x):
        return self.pool(torch.tanh(self.conv(x) - self.shift) - self.bias)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, SHIFT]
