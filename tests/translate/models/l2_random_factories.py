"""Level 2: the random factories in forward: torch.rand and torch.randint of a given size,
normal_ and uniform_ on an empty tensor, torch.rand_like in bf16; each one `rand` tensor."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = torch.rand(BATCH, DIM) + torch.randint(0, 7, (BATCH, DIM))
        b = torch.empty_like(x).normal_(2.0, 0.5) * x
        c = torch.empty_like(x).uniform_(-1.0, 3.0) + x
        d = torch.rand_like(x, dtype=torch.bfloat16)
        return a, b, c, d


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
