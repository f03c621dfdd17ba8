"""Level 2: attention written with bmm: scores = Q K^T * scale -> softmax -> @ V, on
(batch*heads, seq, head_dim) tensors."""
import torch
import torch.nn as nn

BATCH_HEADS = 128
SEQ = 512
HEAD_DIM = 64


class Model(nn.Module):
    def __init__(self, head_dim):
        super().__init__()
        self.scale = head_dim ** -0.5

    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) * self.scale
        return torch.bmm(torch.softmax(scores, dim=-1), v)


def get_inputs():
    shape = (BATCH_HEADS, SEQ, HEAD_DIM)
    return [torch.randn(shape), torch.randn(shape), torch.randn(shape)]


def get_init_inputs():
    return [HEAD_DIM]
