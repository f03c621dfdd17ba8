"""Whole model: a 32-layer LLaMA-style decoder (dim 4096, 32 heads, SwiGLU hidden 11008,
seq 2048, batch 1): token embedding -> 32 x [RMSNorm, rotary causal attention, RMSNorm,
SwiGLU] -> final RMSNorm -> LM head.

TOO BIG FOR EAGER RUNS at these sizes (about 6.7e9 parameters, 27 GB in f32): it is only ever
traced on meta tensors (torch.export on the meta device).  census.py runs it eagerly only with
its constants shrunk (8 layers of dim 256).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1
SEQ = 2048
LAYERS = 32          # equal to HEADS on purpose (the brief's shape): an ambiguity by value
DIM = 4096
HEADS = 32
HIDDEN = 11008
VOCAB = 32000
EPS = 1e-5


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


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, hidden, eps):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.attn_norm = RMSNorm(dim, eps)
        self.wqkv = nn.Linear(dim, 3 * dim, bias=False)
        self.wo = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = RMSNorm(dim, eps)
        self.gate_up = nn.Linear(dim, 2 * hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x, cos, sin):
        b, s, d = x.shape
        qkv = self.wqkv(self.attn_norm(x)).view(b, s, 3, self.heads, self.head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, d))
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class Model(nn.Module):
    def __init__(self, vocab, dim, layers, heads, hidden, seq, eps):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.layers = nn.ModuleList(DecoderLayer(dim, heads, hidden, eps) for _ in range(layers))
        self.norm = RMSNorm(dim, eps)
        self.head = nn.Linear(dim, vocab, bias=False)
        head_dim = dim // heads
        inv_freq = 1.0 / (500000.0 ** (torch.arange(0, head_dim, 2).float() / head_dim))
        angles = torch.outer(torch.arange(seq).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, ids):
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.head(self.norm(x))


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM, LAYERS, HEADS, HIDDEN, SEQ, EPS]
