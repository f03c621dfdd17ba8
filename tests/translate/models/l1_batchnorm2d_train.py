"""Level 1: BatchNorm2d in training mode (model.train() in the constructor): batch statistics,
and the running buffers are updated as a side effect (extra outputs after export)."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 64
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        self.train()

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]
