"""Trap: transpose(1, 2).contiguous().view(...) (a real copy), versus reshape of a transposed
tensor (a copy as well) and view of a contiguous one (free): the multi-head merge of attention."""
import torch
import torch.nn as nn

BATCH = 8
HEADS = 16
SEQ = 1024
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        # x: (B, H, S, Dh) -> (B, S, H*Dh)
        merged = x.transpose(1, 2).contiguous().view(BATCH, SEQ, HEADS * HEAD_DIM)
        reshaped = x.transpose(1, 2).reshape(BATCH, SEQ, -1)
        flat = x.view(BATCH, HEADS, -1)
        return merged - reshaped + flat.view(BATCH, SEQ, HEADS * HEAD_DIM)


def get_inputs():
    return [torch.randn(BATCH, HEADS, SEQ, HEAD_DIM)]


def get_init_inputs():
    return []
