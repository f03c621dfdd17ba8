"""Pool gemm_bias_gelu, deliberately poor: a Python loop over 1024-column blocks of the output
(one GEMM+bias and one GELU per block, x re-read per block), joined with torch.cat (a copy)."""
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
        outs = []
        for j in range(0, self.weight.shape[0], 1024):
            outs.append(F.gelu(F.linear(x, self.weight[j:j + 1024], self.bias[j:j + 1024])))
        return torch.cat(outs, dim=-1)


def get_inputs():
    return [torch.randn(B, S, DIN, dtype=torch.bfloat16)]


def get_init_inputs():
    return [DIN, DOUT]
