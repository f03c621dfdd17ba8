"""Two blocks under torch.utils.checkpoint (non-reentrant): their forward runs again in the
backward, as PyTorch runs it, so the backward group holds the recomputed kernels and the
forward saves only the blocks' inputs."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint

BATCH = 16
DIM = 32


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(DIM, 4 * DIM)
        self.fc2 = nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1 = Block()
        self.b2 = Block()

    def forward(self, x):
        x = checkpoint(self.b1, x, use_reentrant=False)
        return checkpoint(self.b2, x, use_reentrant=False)


def get_inputs():
    return [torch.randn(BATCH, DIM)]
