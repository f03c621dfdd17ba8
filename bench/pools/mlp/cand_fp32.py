"""Pool mlp, deliberately poor: the block in fp32 with TF32 off (fp32 weight copies every call,
fp32 SIMT GEMMs), rounded to bf16 at the end."""
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
        h = F.linear(x.float(), self.w1.float(), self.b1.float())
        return F.linear(F.gelu(h), self.w2.float(), self.b2.float()).to(x.dtype)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
