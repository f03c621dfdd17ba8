"""Level 1: log of x squared plus one, and x to the power 3 (pow.Tensor_Scalar) and 2 to the power x (pow.Scalar)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2048
DIM = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log(x.pow(2) + 1.0) + torch.pow(x, 3) + torch.pow(2.0, x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
