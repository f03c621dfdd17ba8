"""Level 1: index_select of every third row through an int64 index buffer (an indirect read:
the translator sees a tensor of indices, not a stride), then a row sum."""
import torch
import torch.nn as nn

ROWS = 6144
COLS = 2048


class Model(nn.Module):
    def __init__(self, rows):
        super().__init__()
        self.register_buffer("index", torch.arange(0, rows, 3))

    def forward(self, x):
        return torch.index_select(x, 0, self.index).sum(dim=1)


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return [ROWS]
