"""A column sum whose terms cancel: the first half of each column is near +1, the second near
-1, so the sum (about 0.1 * sqrt(N) in size) is far below its partial sums (up to N / 2).
Added one element after another in f32, as the C backend adds them, it is about 2e-2 off
float64; PyTorch's CPU sum about 3e-4 (docs/validate.md, "Comparison", the accumulator
run)."""
import torch
import torch.nn as nn

N = 262144
C = 4


class Model(nn.Module):
    def forward(self, x):
        return x.sum(0)


def get_inputs():
    sign = torch.ones(N, 1)
    sign[N // 2:] = -1
    return [sign + 0.1 * torch.randn(N, C)]


def get_init_inputs():
    return []
