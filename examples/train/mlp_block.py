"""A transformer MLP block's training step, mixed precision as torch.autocast runs it: the
weights are f32 master copies (AdamW keeps its moments in f32 too), each linear casts its
input and weight to bf16 and computes in bf16, the residual stream stays f32.

    solar translate examples/train/mlp_block.py --train --optimizer adamw -o mlp_train.air
    solar analyze mlp_train.air --device h100-sxm
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 4096      # batch x sequence
DIM = 2048
HIDDEN = 8192
BF16 = torch.bfloat16


def linear(x, layer):
    """F.linear in bf16, as autocast runs it: the input and the f32 weight and bias cast."""
    b = layer.bias.to(BF16) if layer.bias is not None else None
    return F.linear(x.to(BF16), layer.weight.to(BF16), b)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM)
        self.up = nn.Linear(DIM, HIDDEN)
        self.down = nn.Linear(HIDDEN, DIM)

    def forward(self, x):
        h = F.gelu(linear(self.norm(x), self.up), approximate="tanh")
        return x + linear(h, self.down).float()


def get_inputs():
    return [torch.randn(TOKENS, DIM)]


def get_init_inputs():
    return []
