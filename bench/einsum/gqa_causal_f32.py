"""Grouped-query causal attention: q and kv projections, repeat_interleave of the kv heads,
einsum scores, a causal mask made in forward, softmax, einsum values, output projection; f32
(bench/einsum.sh)."""
import torch
import torch.nn as nn

B, S, D, NH, NKV = 4, 1024, 1024, 16, 4
HD = D // NH


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(D, NH * HD, bias=False)
        self.kv = nn.Linear(D, 2 * NKV * HD, bias=False)
        self.o = nn.Linear(NH * HD, D, bias=False)

    def forward(self, x):
        q = self.q(x).view(B, S, NH, HD)
        k, v = self.kv(x).view(B, S, 2, NKV, HD).unbind(2)
        k = k.repeat_interleave(NH // NKV, dim=2)
        v = v.repeat_interleave(NH // NKV, dim=2)
        s = torch.einsum("bqhd,bkhd->bhqk", q, k) / HD ** 0.5
        mask = torch.ones(S, S, dtype=torch.bool).tril()
        s = s.masked_fill(~mask, float("-inf"))
        o = torch.einsum("bhqk,bkhd->bqhd", s.softmax(-1), v)
        return self.o(o.reshape(B, S, D))


def get_inputs():
    return [torch.randn(B, S, D)]


def get_init_inputs():
    return []
