"""Level 1: comparisons and select: torch.where with a tensor and a scalar branch, eq/gt/lt/ne,
logical_and, and a bool mask cast back to float."""
import torch
import torch.nn as nn

BATCH = 1024
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        mask = (x > 0.0) & (y < 0.5)
        picked = torch.where(mask, x, 0.0)
        other = torch.where(x != y, y, x)
        return picked + other * (x == 0.0).float() + (x >= y).to(x.dtype)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
