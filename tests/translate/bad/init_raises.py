"""Bad input: the constructor raises (a 1000-wide LayerNorm weight cannot be reshaped into 64
groups): the error must name the failing line in the file, line 16, not torch's internals."""
import torch
import torch.nn as nn

BATCH = 8
DIM = 1000
GROUPS = 64


class Model(nn.Module):
    def __init__(self, dim, groups):
        super().__init__()
        self.ln = nn.LayerNorm(dim)
        # raises: 1000 is not divisible by 64
        self.grouped = nn.Parameter(self.ln.weight.detach().view(groups, -1))

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return [DIM, GROUPS]
