"""Level 1: adaptive average pooling to 1x1 (global average pool), then flatten."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 512
HEIGHT = 64
WIDTH = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x):
        return torch.flatten(self.pool(x), 1)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
