"""Trap: matmul broadcasting. A 4-D activation (batch, heads, M, K) times a 2-D weight (K, N),
and a 3-D batch (BATCH, 1, ...) against a (HEADS, ...) batch: the batch dimensions broadcast."""
import torch
import torch.nn as nn

BATCH = 4
HEADS = 16
M = 256
K = 64
N = 128


class Model(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n))

    def forward(self, x, y):
        # (B, H, M, K) @ (K, N) -> (B, H, M, N)
        a = torch.matmul(x, self.weight)
        # (B, 1, M, N) @ (H, N, K) -> (B, H, M, K): the size-1 batch dim broadcasts against H
        b = torch.matmul(a[:, :1], y)
        return a.sum(dim=-1) + b.mean(dim=-1)


def get_inputs():
    return [torch.randn(BATCH, HEADS, M, K), torch.randn(HEADS, N, K)]


def get_init_inputs():
    return [K, N]
