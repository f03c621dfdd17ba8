"""SDPA with a boolean attention mask under --train: the fused kernels with the mask (the
forward's scores and the backward's P select it), validated against PyTorch's SDPA."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, H, S, D = 2, 4, 256, 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(H * D, 3 * H * D)

    def forward(self, x):
        q, k, v = self.qkv(x).view(B, S, 3, H, D).permute(2, 0, 3, 1, 4)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=x.new_ones(S, S).tril().bool())


def get_inputs():
    return [torch.randn(B, S, H * D)]
