"""torch.einsum of seven operands: more than the translator's exhaustive order search takes."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b, c, d, e, f, g):
        return torch.einsum("ab,bc,cd,de,ef,fg,gh->ah", a, b, c, d, e, f, g)


def get_inputs():
    return [torch.randn(4, 4) for _ in range(7)]


def get_init_inputs():
    return []
