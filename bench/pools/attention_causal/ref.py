"""Pool attention_causal, reference: naive causal attention, bf16, B=8 H=16 S=2048 D=64: the
whole [S, S] score matrix (baddbmm with the scale), the upper triangle masked with -inf
(masked_fill_), softmax, bmm (as examples/attention_causal.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 8, 16, 2048, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        b, h, s, d = q.shape
        q3, k3, v3 = (t.reshape(b * h, s, d) for t in (q, k, v))
        empty = torch.empty(b * h, s, s, dtype=q.dtype, device=q.device)
        scores = torch.baddbmm(empty, q3, k3.transpose(1, 2), beta=0.0, alpha=d**-0.5)
        future = torch.ones(s, s, dtype=torch.bool, device=q.device).triu_(1)
        scores.masked_fill_(future, float("-inf"))
        p = torch.softmax(scores, dim=-1)
        return torch.bmm(p, v3).view(b, h, s, d)


def get_inputs():
    return [torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
