"""Pool reduction: torch.einsum("bsv->bs") (dispatches to a sum)."""
import torch
import torch.nn as nn

B, S, V = 4, 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.einsum("bsv->bs", x)


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
