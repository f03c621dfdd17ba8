"""Reductions under CUDA autocast: the sum of a bf16 tensor is called with dtype=float32 (one
kernel reading bf16, no cast kernel before it, as CUDA autocast's fp32_set_opt_dtype runs it);
softmax casts, then runs in float32."""
import torch
import torch.nn as nn

N = 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(N, N)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = self.fc(x)
            return h.sum(), torch.softmax(h, -1)


def get_inputs():
    return [torch.randn(8, N)]


def get_init_inputs():
    return []
