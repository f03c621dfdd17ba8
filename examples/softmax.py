"""torch.softmax over the last dim of f32 logits [4, 1024, 32000] (4096 rows of 32000).
AIR: softmax.air."""
import torch
import torch.nn as nn

B, S, V = 4, 1024, 32000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
