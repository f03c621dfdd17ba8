"""Pool attention_full: F.scaled_dot_product_attention, backend chosen by PyTorch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 8, 16, 2048, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    return [torch.randn(B, H, S, D, dtype=torch.bfloat16) for _ in range(3)]


def get_init_inputs():
    return []
