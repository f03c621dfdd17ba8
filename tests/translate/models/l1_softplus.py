"""Level 1: softplus with beta 2 and threshold 10."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4096
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.softplus(x, beta=2.0, threshold=10.0)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
