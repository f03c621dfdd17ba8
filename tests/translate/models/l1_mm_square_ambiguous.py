"""Level 1: square torch.mm where M, K and N share one value on purpose.

Deliberate ambiguity: every dimension of the graph is 2048, so a translator that maps sizes
back to constants by value alone cannot tell them apart; it must still produce a correct AIR.
"""
import torch
import torch.nn as nn

SIZE = 2048


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.mm(a, b)


def get_inputs():
    return [torch.randn(SIZE, SIZE), torch.randn(SIZE, SIZE)]


def get_init_inputs():
    return []
