"""torch.topk with sorted=False: the order of its results is unspecified, so no translation can
be checked against it; refused at its line with the rewrite (sorted=True, the default)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        v, i = torch.topk(x, 2, dim=-1, sorted=False)
        return v


def get_inputs():
    return [torch.randn(4, 8)]


def get_init_inputs():
    return []
