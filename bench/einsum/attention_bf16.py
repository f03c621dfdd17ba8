"""Attention written with torch.einsum, bf16: scores, softmax, weighted values (bench/einsum.sh)."""
import torch
import torch.nn as nn

B, H, S, D = 4, 16, 1024, 128


class Model(nn.Module):
    def forward(self, q, k, v):
        s = torch.einsum("bhqd,bhkd->bhqk", q, k) * D ** -0.5
        return torch.einsum("bhqk,bhkd->bhqd", s.softmax(dim=-1), v)


def get_inputs():
    return [torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
