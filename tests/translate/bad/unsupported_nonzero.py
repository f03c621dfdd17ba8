"""Bad input: torch.nonzero (line 16): the output's shape depends on the data (an unbacked size
in torch.export, if it exports at all)."""
import torch
import torch.nn as nn

BATCH = 256
DIM = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        keep = x > 0.0
        idx = torch.nonzero(keep)
        return idx.float().sum()


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
