"""Pool mlp, deliberately poor: the hidden activation computed twice (a checkpoint-style
recompute of fc1 + GELU, the first result discarded after a use that does not change the output)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 4, 2048, 2048


class Model(nn.Module):
    def __init__(self, d_model, dtype=torch.bfloat16):
        super().__init__()
        hidden = 4 * d_model
        self.w1 = nn.Parameter(torch.randn(hidden, d_model, dtype=dtype) * d_model**-0.5)
        self.b1 = nn.Parameter(torch.randn(hidden, dtype=dtype) * 0.1)
        self.w2 = nn.Parameter(torch.randn(d_model, hidden, dtype=dtype) * hidden**-0.5)
        self.b2 = nn.Parameter(torch.randn(d_model, dtype=dtype) * 0.1)

    def forward(self, x):
        h = F.gelu(F.linear(x, self.w1, self.b1))
        h_again = F.gelu(F.linear(x, self.w1, self.b1))
        return F.linear(torch.maximum(h, h_again), self.w2, self.b2)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
