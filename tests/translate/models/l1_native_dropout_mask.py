"""Level 1: torch.native_dropout in training mode returning its bool mask too (what autograd
keeps for the backward): the output kernel and the mask kernel read one uniform `rand`
tensor, and the mask's write (1 byte per element) is an output, so it is counted."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 3072


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y, mask = torch.native_dropout(x, 0.3, True)
        return y, mask


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
