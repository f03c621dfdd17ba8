"""Level 1: reductions that return an index: argmax over a dim, argmin with keepdim, argmax of
the flattened tensor, and torch.max(x, dim) whose indices are used (values and indices from
one kernel, as eager's).  The index is an iterator (a row-major position over the reduced
dims) stored where an element beats the running extreme strictly: no data-dependent
indexing, and the first of equal extremes wins, as in PyTorch."""
import torch
import torch.nn as nn

B = 16
D1 = 64
D2 = 48


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        v, i = torch.max(x, dim=2)
        return (torch.argmax(x, dim=self.dim), torch.argmin(x, dim=-1, keepdim=True),
                torch.argmax(x), v * 2.0, i)


def get_inputs():
    return [torch.randn(B, D1, D2)]


def get_init_inputs():
    return [1]
