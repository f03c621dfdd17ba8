"""Trap: keepdim=False reductions that shift the later dims, followed by broadcasting against
the reduced tensor re-expanded with [:, None] (None indexing)."""
import torch
import torch.nn as nn

BATCH = 32
ROWS = 1024
COLS = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        m = x.mean(dim=1)                    # (B, C): dim 2 became dim 1
        c = x - m[:, None, :]                # broadcast back over the rows
        s = c.pow(2).sum(dim=2, keepdim=False)   # (B, R)
        return c / torch.sqrt(s[:, :, None] + 1.0)


def get_inputs():
    return [torch.randn(BATCH, ROWS, COLS)]


def get_init_inputs():
    return []
