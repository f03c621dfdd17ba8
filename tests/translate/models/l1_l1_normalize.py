"""Level 1: L1 normalization of rows, x / sum(|x|, dim=1, keepdim=True), and max-abs
normalization over dim -1 via amax."""
import torch
import torch.nn as nn

BATCH = 1024
DIM = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        l1 = x / torch.sum(torch.abs(x), dim=1, keepdim=True)
        return l1 + x / torch.amax(torch.abs(x), dim=-1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
