"""Trap: a bf16 activation meets an f32 parameter (type promotion to f32), a bf16 bmm, then an
explicit .float() before the norm and .to(bfloat16) after it."""
import torch
import torch.nn as nn

BATCH = 16
M = 256
K = 512
N = 128


class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gain = nn.Parameter(torch.ones(n))          # float32

    def forward(self, a, b):
        c = torch.bmm(a, b)                               # bf16 out, f32 accumulate
        d = c.float()
        d = d * torch.rsqrt(d.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
        return (d * self.gain).to(torch.bfloat16) + c     # bf16 + bf16


def get_inputs():
    return [torch.randn(BATCH, M, K, dtype=torch.bfloat16), torch.randn(BATCH, K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return [N]
