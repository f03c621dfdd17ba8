"""Level 1: softmax over the last dim of a 2-D input."""
import torch
import torch.nn as nn

BATCH = 4096
DIM = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
