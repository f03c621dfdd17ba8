"""Pool gemm_bias_gelu, deliberately poor: the whole layer in fp32 with TF32 off (fp32 SIMT
GEMM, fp32 copies of x and W every call), rounded to bf16 at the end."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, DIN, DOUT = 2, 2048, 4096, 8192


class Model(nn.Module):
    def __init__(self, in_features, out_features, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_features, in_features, dtype=dtype) * in_features**-0.5)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=dtype) * 0.1)

    def forward(self, x):
        y = F.linear(x.float(), self.weight.float(), self.bias.float())
        return F.gelu(y).to(x.dtype)


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
