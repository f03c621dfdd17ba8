"""torch.utils.checkpoint inside an autocast region under --train: refused at the call (the
recomputation in the backward would run without the region's casts)."""
import torch
import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return checkpoint(self.fc, x, use_reentrant=False)


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
