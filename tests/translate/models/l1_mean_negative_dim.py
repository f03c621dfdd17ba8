"""Level 1: mean over dim -2 (a negative dim), keepdim=False."""
import torch
import torch.nn as nn

BATCH = 32
DIM1 = 1024
DIM2 = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.mean(x, dim=-2)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []
