"""A @ B @ C as one torch.einsum, f32, with a thin C: contracting B with C first costs 64 times
fewer flops than left to right; the AIR takes the cheapest order (bench/einsum.sh)."""
import torch
import torch.nn as nn

I, J, K, L = 4096, 4096, 4096, 64


class Model(nn.Module):
    def forward(self, a, b, c):
        return torch.einsum("ij,jk,kl->il", a, b, c)


def get_inputs():
    return [torch.randn(I, J), torch.randn(J, K), torch.randn(K, L)]


def get_init_inputs():
    return []
