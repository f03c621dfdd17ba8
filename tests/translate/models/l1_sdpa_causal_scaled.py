"""Level 1: scaled dot-product attention with is_causal=True and an explicit scale 0.125
(not 1/sqrt(head_dim) = 0.088)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
HEADS = 32
SEQ = 2048
HEAD_DIM = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.125)


def get_inputs():
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return []
