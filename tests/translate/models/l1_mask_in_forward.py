"""A causal mask made inside forward without a device (torch.ones(S, S).tril(), and an arange
comparison): torch.export ran on meta inputs while these tensors were on the CPU, and failed
with 'Unhandled FakeTensor Device Propagation ... meta, cpu' (found on a GQA block)."""
import torch
import torch.nn as nn

B, S = 2, 16


class Model(nn.Module):
    def forward(self, s):
        mask = torch.ones(S, S, dtype=torch.bool).tril()
        a = s.masked_fill(~mask, float("-inf")).softmax(-1)
        i = torch.arange(S)
        return a, s * (i[:, None] >= i[None, :])


def get_inputs():
    return [torch.randn(B, S, S)]


def get_init_inputs():
    return []
