"""Causal SDPA in bf16 under --train, at a size where the datapath matters: P and dS enter
the backward's products in bf16, as FlashAttention-2 feeds the tensor cores, so its products
count on tensor.bf16 (with them in f32 the backward's bound was 1.55 ms on an H100, above
what flash attention runs in)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 4, 16, 2048, 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(H * D, 3 * H * D).bfloat16()

    def forward(self, x):
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    return [torch.randn(B, S, H * D).bfloat16()]
