"""Pool reduction, deliberately poor: a transposed .contiguous() copy of the whole input, then
a reduction over dim 0 (an extra read and write of 512 MiB)."""
import torch
import torch.nn as nn

B, S, V = 4, 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        flat = x.reshape(-1, x.shape[-1])
        return flat.t().contiguous().sum(dim=0).view(x.shape[:-1])


def get_inputs():
    return [torch.randn(B, S, V, dtype=torch.float32)]


def get_init_inputs():
    return []
