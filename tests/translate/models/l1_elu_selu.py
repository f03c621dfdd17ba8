"""Level 1: ELU (alpha 0.5) plus SELU of the same input."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2048
DIM = 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.elu(x, alpha=0.5) + torch.selu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
