"""one_hot of class targets, then a weighted sum per row: the one-hot compares the targets with
the class iterator inside a value (`select(t[i] == c, 1, 0)`), which needs no data index, so the
translation stays `air 1;` and validates as any other."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C = 16, 10


class Model(nn.Module):
    def forward(self, t, w):
        return (F.one_hot(t, C).float() * w).sum(dim=1)


def get_inputs():
    return [torch.randint(0, C, (N,)), torch.randn(N, C)]
