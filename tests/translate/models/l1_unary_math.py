"""Level 1: the unary math functions on one input, combined so that none is dead: exp, log1p of |x|, sqrt of |x|+1, rsqrt, sin, cos, erf, reciprocal, sign, floor, ceil, round, trunc."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 256
DIM = 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.exp(-x * x) + torch.log1p(torch.abs(x)) + torch.sqrt(torch.abs(x) + 1.0) * torch.rsqrt(x * x + 1.0) + torch.sin(x) * torch.cos(x) + torch.erf(x) + torch.reciprocal(x * x + 2.0) + torch.sign(x) + torch.floor(x) - torch.ceil(x) + torch.round(x) + torch.trunc(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
