"""Trap: attention scores masked with a causal mask built from torch.tril(ones) registered as a
buffer, masked_fill with -inf, softmax, then @ V: a mask that depends only on indices."""
import torch
import torch.nn as nn

BATCH = 4
HEADS = 8
SEQ = 1024
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, seq):
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq, dtype=torch.bool)))

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / (HEAD_DIM ** 0.5)
        scores = scores.masked_fill(~self.mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


def get_inputs():
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return [SEQ]
