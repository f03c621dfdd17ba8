"""Bad input: data-dependent control flow (`if x.sum() > 0:`, line 16) that torch.export
rejects: the branch depends on tensor values, not on shapes."""
import torch
import torch.nn as nn

BATCH = 32
DIM = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = x * 3.0
        if y.sum() > 0:
            return torch.relu(y)
        return torch.tanh(y)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
