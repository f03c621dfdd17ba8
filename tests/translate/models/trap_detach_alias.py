"""Trap: .detach() (aten.alias after decomposition: a view that is the same tensor) used in a
centering, y = x - mean(x.detach()), and a detached scale: values as if detach were absent."""
import torch
import torch.nn as nn

BATCH = 256
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        centre = x.detach().mean(dim=-1, keepdim=True)
        scale = x.detach().abs().amax(dim=-1, keepdim=True) + 1.0
        return (x - centre) / scale


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
