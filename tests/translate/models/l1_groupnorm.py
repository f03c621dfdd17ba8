"""Level 1: GroupNorm, 8 groups over 64 channels."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
GROUPS = 8
HEIGHT = 256
WIDTH = 512


class Model(nn.Module):
    def __init__(self, groups, channels):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [GROUPS, CHANNELS]
