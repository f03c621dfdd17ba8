"""One Llama-3-8B decoder layer's training step (bf16 compute, f32 master weights as autocast
and AdamW keep them): RMSNorm, grouped-query attention with rotary embeddings and a causal
mask, SwiGLU.  Attention is written out (matmul, masked softmax, matmul), as eager PyTorch
runs it without a fused kernel.  Sizes: Llama-3-8B's (hidden 4096, 32 heads of 128, 8 KV heads,
MLP 14336), 2048 tokens of one sequence.

    solar translate examples/train/llama_layer.py --train --optimizer adamw -o llama_train.air
    solar analyze llama_train.air --device h100-sxm
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SEQ = 2048
HEADS = 32
KV_HEADS = 8
HEAD_DIM = 128
DIM = HEADS * HEAD_DIM
INTER = 14336
BF16 = torch.bfloat16


def linear(x, layer):
    return F.linear(x.to(BF16), layer.weight.to(BF16))


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        x = x.float()
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_norm = RMSNorm(DIM)
        self.q = nn.Linear(DIM, HEADS * HEAD_DIM, bias=False)
        self.k = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.v = nn.Linear(DIM, KV_HEADS * HEAD_DIM, bias=False)
        self.o = nn.Linear(HEADS * HEAD_DIM, DIM, bias=False)
        self.mlp_norm = RMSNorm(DIM)
        self.gate = nn.Linear(DIM, INTER, bias=False)
        self.up = nn.Linear(DIM, INTER, bias=False)
        self.down = nn.Linear(INTER, DIM, bias=False)
        self.register_buffer("mask", torch.ones(SEQ, SEQ, dtype=torch.bool).triu(1), persistent=False)

    def forward(self, x, cos, sin):
        h = self.attn_norm(x)
        q = linear(h, self.q).view(SEQ, HEADS, HEAD_DIM).transpose(0, 1)
        k = linear(h, self.k).view(SEQ, KV_HEADS, HEAD_DIM).transpose(0, 1)
        v = linear(h, self.v).view(SEQ, KV_HEADS, HEAD_DIM).transpose(0, 1)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = k.repeat_interleave(HEADS // KV_HEADS, dim=0)
        v = v.repeat_interleave(HEADS // KV_HEADS, dim=0)
        s = (q @ k.transpose(1, 2)) * (1.0 / math.sqrt(HEAD_DIM))
        p = torch.softmax(s.masked_fill(self.mask, float("-inf")).float(), dim=-1).to(BF16)
        a = (p @ v).transpose(0, 1).reshape(SEQ, DIM)
        x = x + linear(a, self.o).float()
        h = self.mlp_norm(x)
        m = F.silu(linear(h, self.gate)) * linear(h, self.up)
        return x + linear(m, self.down).float()


def get_inputs():
    pos = torch.arange(SEQ, dtype=torch.float32)[:, None]
    inv = 1.0 / (500000.0 ** (torch.arange(0, HEAD_DIM, 2, dtype=torch.float32) / HEAD_DIM))
    ang = torch.cat((pos * inv, pos * inv), dim=-1)
    return [torch.randn(SEQ, DIM), ang.cos().to(BF16), ang.sin().to(BF16)]


def get_init_inputs():
    return []
