"""Level 2: conv3d -> softmax over channels -> two max pools (kernel 2)."""
import torch
import torch.nn as nn

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 32
DEPTH = 128
HEIGHT = 64
WIDTH = 256


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)
        self.pool1 = nn.MaxPool3d(2)
        self.pool2 = nn.MaxPool3d(2)

    def forward(self, x):
        return self.pool2(self.pool1(torch.softmax(self.conv(x), dim=1)))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
