"""Level 1: SiLU (swish) times Mish."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 4096
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.silu(x) * F.mish(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
