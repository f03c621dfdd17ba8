"""Level 1: LayerNorm over the last two dimensions (normalized_shape has 2 entries)."""
import torch
import torch.nn as nn

BATCH = 16
FEATURES = 64
DIM1 = 256
DIM2 = 128


class Model(nn.Module):
    def __init__(self, dim1, dim2):
        super().__init__()
        self.ln = nn.LayerNorm((dim1, dim2), eps=1e-6)

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn(BATCH, FEATURES, DIM1, DIM2)]


def get_init_inputs():
    return [DIM1, DIM2]
