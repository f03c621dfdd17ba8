"""Bad input: torch.topk (line 16) of k = 16: more than the 4 that translate (k passes would count more comparisons than a selection needs, docs/bounds.md "Selections")."""
import torch
import torch.nn as nn

BATCH = 128
DIM = 8192
K = 16


class Model(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        values, _ = torch.topk(x * 2.0, self.k, dim=-1)
        return values.sum(dim=-1)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return [K]
