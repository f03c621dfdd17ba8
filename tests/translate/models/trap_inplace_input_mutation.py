"""Trap: forward mutates its input in place (x.mul_(2) then x.add_(1)): the exported program
returns the mutated input as an extra output (graph signature: user input to mutate), and the
returned value is computed from the mutated input, 2x + 1 + sigmoid(2x + 1)."""
import torch
import torch.nn as nn

BATCH = 1024
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x.mul_(2.0).add_(1.0)
        return x + torch.sigmoid(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
