"""A shifted-window attention block (Swin): layer norm, torch.roll, window partition, qkv, einsum
attention per window, projection, reverse roll, residual; f32 (bench/einsum.sh)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, HH, WW, C, WS, NH = 8, 56, 56, 128, 7, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(C, 3 * C)
        self.proj = nn.Linear(C, C)
        self.norm = nn.LayerNorm(C)

    def forward(self, x):
        s = WS // 2
        h = torch.roll(self.norm(x), shifts=(-s, -s), dims=(1, 2))
        h = h.view(B, HH // WS, WS, WW // WS, WS, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, WS * WS, C)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        q = q.view(q.shape[0], WS * WS, NH, C // NH)
        k = k.view(k.shape[0], WS * WS, NH, C // NH)
        v = v.view(v.shape[0], WS * WS, NH, C // NH)
        a = torch.einsum("wqhd,wkhd->whqk", q, k) * (C // NH) ** -0.5
        o = torch.einsum("whqk,wkhd->wqhd", a.softmax(-1), v).reshape(-1, WS * WS, C)
        o = self.proj(o).view(B, HH // WS, WW // WS, WS, WS, C).permute(0, 1, 3, 2, 4, 5).reshape(B, HH, WW, C)
        return x + torch.roll(o, shifts=(s, s), dims=(1, 2))


def get_inputs():
    return [torch.randn(B, HH, WW, C)]


def get_init_inputs():
    return []
