"""Level 1: LeakyReLU with negative slope 0.01."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2048
DIM = 32768


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.leaky_relu(x, negative_slope=0.01)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
