"""Pool attention_causal, deliberately poor: a Python loop over the B*H heads, naive masked
attention per head (128 x 5 small launches), results stacked."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 8, 16, 2048, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        b, h, s, d = q.shape
        future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu_(1)
        outs = []
        for i in range(b * h):
            qi, ki, vi = (t.reshape(b * h, s, d)[i] for t in (q, k, v))
            sc = (qi @ ki.t()) * d**-0.5
            outs.append(torch.softmax(sc.masked_fill(future, float("-inf")), dim=-1) @ vi)
        return torch.stack(outs).view(b, h, s, d)


def get_inputs():
    return [torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
