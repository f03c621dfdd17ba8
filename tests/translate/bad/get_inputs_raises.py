"""Bad input: get_inputs raises (a shape check fails): the error must name the raise, line 19."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 1000
BLOCK = 64


class Model(nn.Module):
    def forward(self, x):
        return x * 2.0


def get_inputs():
    x = torch.randn(BATCH, DIM)
    if DIM % BLOCK != 0:
        # deliberately raised: DIM is not a multiple of BLOCK
        raise ValueError("DIM must be a multiple of BLOCK")
    return [x]


def get_init_inputs():
    return []
