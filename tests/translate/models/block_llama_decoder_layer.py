"""Whole block: one LLaMA-style decoder layer: RMSNorm -> Q/K/V projections (no bias) ->
rotary position embedding (precomputed cos/sin buffers, rotate-half with slicing and cat) ->
causal sdpa -> output projection -> residual -> RMSNorm -> SwiGLU MLP (silu(gate) * up -> down)
-> residual."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 2
SEQ = 1024
DIM = 2048
HEADS = 16
HIDDEN = 8192
EPS = 1e-6


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Model(nn.Module):
    def __init__(self, dim, heads, hidden, seq, eps):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.attn_norm = RMSNorm(dim, eps)
        self.wq = nn.Linear(dim, dim, bias=False)
        self.wk = nn.Linear(dim, dim, bias=False)
        self.wv = nn.Linear(dim, dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = RMSNorm(dim, eps)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, x):
        b, s, d = x.shape
        h = self.attn_norm(x)
        q = self.wq(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.wk(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.wv(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, d))
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return [DIM, HEADS, HIDDEN, SEQ, EPS]
