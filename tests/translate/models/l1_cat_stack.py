"""Level 1: torch.cat along dim 1 and a negative dim, torch.stack along a new dim 0."""
import torch
import torch.nn as nn

BATCH = 32
DIM_A = 512
DIM_B = 256
DIM_C = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        ab = torch.cat([a, b], dim=1)                # (B, DIM_A + DIM_B, DIM_C)
        abc = torch.cat((ab, c[:, :, :8]), dim=-1)   # (B, DIM_A + DIM_B, DIM_C + 8)
        s = torch.stack([ab, c], dim=0)              # (2, B, DIM_A + DIM_B, DIM_C)
        return abc.sum(dim=-1) + s.sum(dim=0).mean(dim=-1)


def get_inputs():
    return [torch.randn(BATCH, DIM_A, DIM_C), torch.randn(BATCH, DIM_B, DIM_C),
            torch.randn(BATCH, DIM_A + DIM_B, DIM_C)]


def get_init_inputs():
    return []
