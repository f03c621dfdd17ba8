"""Level 1: amax over dims (1, 3) keepdim=True, minus amin over (-1, -3) keepdim=True."""
import torch
import torch.nn as nn

BATCH = 8
CHANNELS = 64
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.amax(x, dim=(1, 3), keepdim=True) - torch.amin(x, dim=(-1, -3), keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
