"""Level 1: GELU, exact (erf) form."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1024
DIM = 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
