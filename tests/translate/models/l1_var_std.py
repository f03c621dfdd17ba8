"""Level 1: unbiased var over dim 1 plus population std (correction 0) over dim 2."""
import torch
import torch.nn as nn

BATCH = 16
DIM1 = 512
DIM2 = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        v = torch.var(x, dim=1, keepdim=True)
        s = torch.std(x, dim=2, correction=0, keepdim=True)
        return v + s


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []
