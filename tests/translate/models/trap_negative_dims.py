"""Trap: negative dims everywhere: transpose(-1, -2), softmax(dim=-2), sum(dim=-3), unsqueeze(-1),
flatten(-2, -1), and cat on dim -1."""
import torch
import torch.nn as nn

BATCH = 8
D1 = 32
D2 = 256
D3 = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        t = x.transpose(-1, -2)                      # (B, D1, D3, D2)
        s = torch.softmax(t, dim=-2)                 # over D3
        r = s.sum(dim=-3)                            # (B, D3, D2)
        u = r.unsqueeze(-1).flatten(-2, -1)          # (B, D3, D2)
        return torch.cat([u, r], dim=-1)             # (B, D3, 2 * D2)


def get_inputs():
    return [torch.randn(BATCH, D1, D2, D3)]


def get_init_inputs():
    return []
