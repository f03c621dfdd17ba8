"""Level 2: a Bernoulli mask drawn in forward, from a probability tensor (torch.bernoulli of a
sigmoid) and from a float (x.bernoulli(0.25)), each multiplied into x: `u < p` of a uniform
`rand` tensor."""
import torch
import torch.nn as nn

BATCH = 32
DIM = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        keep = torch.bernoulli(torch.sigmoid(x))
        return keep * x + x.bernoulli(0.25) * 3.0


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
