"""A Mixtral-style sparse MoE block, bf16: a router (nn.Linear(D, E)) picks the top 2 of E=8
experts per token, each expert a SwiGLU MLP (w2(silu(w1 x) * w3 x)), outputs mixed by the
renormalised router weights, as transformers' MixtralSparseMoeBlock computes it (softmax in f32,
torch.topk, a per-expert gather of its tokens, index_add_).  Mixtral-8x7B's sizes, 4096
tokens.  AIR: moe_layer.air.

The weights are held directly by the module, stacked per expert, so that their names match the
AIR tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

T, D, FF, E = 4096, 4096, 14336, 8
TOP_K = 2


class Model(nn.Module):
    def __init__(self, hidden, ffn, experts, dtype=torch.bfloat16):
        super().__init__()
        self.gate = nn.Parameter(torch.randn(experts, hidden, dtype=dtype) * hidden**-0.5)
        self.w1 = nn.Parameter(torch.randn(experts, ffn, hidden, dtype=dtype) * hidden**-0.5)
        self.w3 = nn.Parameter(torch.randn(experts, ffn, hidden, dtype=dtype) * hidden**-0.5)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, ffn, dtype=dtype) * ffn**-0.5)

    def forward(self, x):
        logits = F.linear(x, self.gate)
        weights = F.softmax(logits, dim=1, dtype=torch.float)
        weights, chosen = torch.topk(weights, TOP_K, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for e in range(self.gate.shape[0]):
            tok, slot = torch.where(chosen == e)
            if tok.numel() == 0:
                continue
            xe = x[tok]
            h = F.silu(F.linear(xe, self.w1[e])) * F.linear(xe, self.w3[e])
            ye = F.linear(h, self.w2[e]) * weights[tok, slot, None]
            out.index_add_(0, tok, ye)
        return out


def get_inputs():
    return [torch.randn(T, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D, FF, E]
