"""Level 1: x.T (aten.numpy_T: every dim reversed) of 2-D and 3-D tensors and x.mT (the last
two dims): index maps, as eager returns views; the matmul reads its operands transposed."""
import torch
import torch.nn as nn

M = 64
K = 32
N = 48
B = 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, c):
        return torch.matmul(a.T, b.T), c.T + 1.0, torch.bmm(c.mT, c)


def get_inputs():
    return [torch.randn(K, M), torch.randn(N, K), torch.randn(B, M, N)]


def get_init_inputs():
    return []
