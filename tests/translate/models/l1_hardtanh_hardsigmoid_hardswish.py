"""Level 1: the piecewise-linear activations: hardtanh(-2, 2), hardsigmoid and hardswish, summed."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1024
DIM = 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.hardtanh(x, min_val=-2.0, max_val=2.0) + F.hardsigmoid(x) + F.hardswish(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
