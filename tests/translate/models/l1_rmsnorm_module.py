"""Level 1: nn.RMSNorm over the last dimension with a learned weight."""
import torch
import torch.nn as nn

BATCH = 4
TOKENS = 2048
DIM = 4096


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.RMSNorm(dim, eps=1e-6)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(BATCH, TOKENS, DIM)]


def get_init_inputs():
    return [DIM]
