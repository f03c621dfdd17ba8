"""Level 1: sum over dim 1 with keepdim=True (KernelBench's reduction shape)."""
import torch
import torch.nn as nn

BATCH = 16
DIM1 = 256
DIM2 = 512
REDUCE_DIM = 1


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, DIM1, DIM2)]


def get_init_inputs():
    return [REDUCE_DIM]
