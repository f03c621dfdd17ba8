"""A non-contiguous view (permute) times a broadcast row, plus a column: index maps only."""
import torch
import torch.nn as nn

R, Cc, T = 16, 24, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(Cc))

    def forward(self, x, col):
        y = x.permute(0, 2, 1)          # [R, T, Cc], no copy
        return y * self.scale + col.unsqueeze(-1)


def get_inputs():
    return [torch.randn(R, Cc, T), torch.randn(R, T)]
