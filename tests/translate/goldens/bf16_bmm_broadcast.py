"""torch.matmul of a batched bf16 tensor with a 2-D one (broadcasting), accumulated in f32."""
import torch
import torch.nn as nn

B, M, K, N = 4, 32, 512, 48


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(B, M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]
