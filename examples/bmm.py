"""torch.bmm: 64 f16 matrix products, 1024 x 1024 x 1024 each.  AIR: bmm.air."""
import torch
import torch.nn as nn

B, M, N, K = 64, 1024, 1024, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(B, M, K, dtype=torch.float16), torch.randn(B, K, N, dtype=torch.float16)]


def get_init_inputs():
    return []
