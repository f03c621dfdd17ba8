"""Level 1: 3-D max pooling, kernel 3, stride 2, ceil_mode=True (a partial last window)."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 32
DEPTH = 16
HEIGHT = 64
WIDTH = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size=3, stride=2, ceil_mode=True)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
