"""Bad input: torch.argsort (line 17) exports fine but is a sort, whose result indices depend on
the data: not expressible in AIR. The translator must name the op and its line."""
import torch
import torch.nn as nn

BATCH = 64
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.relu(x)
        # the data-dependent op
        order = torch.argsort(y, dim=-1)
        return order


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
