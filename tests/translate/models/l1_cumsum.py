"""Level 1: cumulative sum along dim 1."""
import torch
import torch.nn as nn

BATCH = 128
LENGTH = 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, LENGTH)]


def get_init_inputs():
    return []
