"""Level 1: log_softmax over dim 1 (channels) of a 4-D input: the reduced dim is not innermost."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 128
HEIGHT = 64
WIDTH = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log_softmax(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
