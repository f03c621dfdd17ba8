"""Level 1: 3-D average pooling, kernel 2, stride 2 (halves every spatial axis)."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 32
DEPTH = 64
HEIGHT = 256
WIDTH = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=2, stride=2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
