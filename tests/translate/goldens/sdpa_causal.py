"""scaled_dot_product_attention, causal, bf16, the default scale: one kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch, heads, seq, head_dim = 2, 4, 128, 32


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    return [torch.randn(batch, heads, seq, head_dim, dtype=torch.bfloat16) for _ in range(3)]
