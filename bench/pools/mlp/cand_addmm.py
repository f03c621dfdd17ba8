"""Pool mlp: both linears as torch.addmm on the 2D token matrix."""
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
        x2 = x.reshape(-1, x.shape[-1])
        h = F.gelu(torch.addmm(self.b1, x2, self.w1.t()))
        return torch.addmm(self.b2, h, self.w2.t()).view_as(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
