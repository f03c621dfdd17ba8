"""Trap: strided slices (x[:, ::2], x[:, 1::2], a step-3 slice with an offset), narrow, and
select on a negative index: every read has a stride or an offset in the stored tensor."""
import torch
import torch.nn as nn

BATCH = 64
DIM = 4096
ROWS = 48


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        even = x[:, ::2]
        odd = x[:, 1::2]
        third = x[:, 5::3][:, :DIM // 4]
        mid = torch.narrow(x, 1, DIM // 4, DIM // 2)
        last = t[:, -1, :]                       # select at index ROWS - 1
        return (even * odd + mid).sum(dim=-1) + third.sum(dim=-1) + last.mean(dim=-1)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randn(BATCH, ROWS, DIM)]


def get_init_inputs():
    return []
