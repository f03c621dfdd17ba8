"""Level 1: torch.max / torch.min over a dim, keeping only the values (the indices are unused)."""
import torch
import torch.nn as nn

BATCH = 64
DIM1 = 2048
DIM2 = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        hi = torch.max(x, dim=1)[0]
        lo, _ = torch.min(x, dim=-1, keepdim=True)
        return hi.sum(dim=-1, keepdim=True) + lo.squeeze(-1)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return []
