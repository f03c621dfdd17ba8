"""LayerNorm over the last dim, then GELU with the tanh approximation, bf16."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 4, 128, 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D, dtype=torch.bfloat16)

    def forward(self, x):
        return F.gelu(self.norm(x), approximate="tanh")


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]
