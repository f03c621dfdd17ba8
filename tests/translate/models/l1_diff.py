"""Level 1: torch.diff along the last dim (x[..., 1:] - x[..., :-1]); the translator runs it as
its decomposition (narrow, sub), which is what eager runs on every device
(aten/src/ATen/native/ReduceOps.cpp)."""
import torch
import torch.nn as nn

ROWS = 64
COLS = 512


class Model(nn.Module):
    def forward(self, x):
        return torch.diff(x, dim=-1) * 2.0


def get_inputs():
    return [torch.randn(ROWS, COLS)]


def get_init_inputs():
    return []
