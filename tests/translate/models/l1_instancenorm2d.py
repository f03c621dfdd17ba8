"""Level 1: InstanceNorm2d (no affine, no running stats): statistics per sample and channel."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 256
WIDTH = 512


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]
