"""Pool cross_entropy: a hand-written fused Triton cross-entropy (bench/pools/pool_triton.py), one
program per row, online logsumexp over chunks of 2048 (the logits read once, nothing [N, V]
written), 8 warps; the mean of the per-row losses in PyTorch."""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

N, V = 8192, 32000
BLOCK, WARPS = 2048, 8

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        import pool_triton
        return pool_triton.cross_entropy(logits, target, block=BLOCK, num_warps=WARPS)


def get_inputs():
    return [torch.randn(N, V, dtype=torch.float32), torch.randint(0, V, (N,))]


def get_init_inputs():
    return []
