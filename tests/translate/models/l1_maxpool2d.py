"""Level 1: 2-D max pooling, 3x3 window, stride 2, padding 1 (the ResNet stem pool)."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 256
WIDTH = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
