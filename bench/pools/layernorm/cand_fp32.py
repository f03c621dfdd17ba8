"""Pool layernorm, deliberately poor: fp32 copies of x, weight and bias, F.layer_norm in fp32,
then a downcast copy (three times the bytes of the bf16 kernel)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, D = 8, 4096, 4096


class Model(nn.Module):
    def __init__(self, d, eps=1e-5, dtype=torch.bfloat16):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(d, dtype=dtype))
        self.bias = nn.Parameter(0.1 * torch.randn(d, dtype=dtype))

    def forward(self, x):
        y = F.layer_norm(x.float(), self.weight.shape, self.weight.float(), self.bias.float(), self.eps)
        return y.to(x.dtype)


def get_inputs():
    return [torch.randn(B, S, D, dtype=torch.bfloat16)]


def get_init_inputs():
    return [D]
