"""Pool mlp, deliberately poor: a Python loop over blocks of 512 tokens (the weights re-read
per block; 16 x 3 launches)."""
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
        out = torch.empty_like(x2)
        for i in range(0, x2.shape[0], 512):
            h = F.gelu(F.linear(x2[i:i + 512], self.w1, self.b1))
            out[i:i + 512] = F.linear(h, self.w2, self.b2)
        return out.view_as(x)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
