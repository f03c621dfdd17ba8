"""Pool conv2d: im2col by hand, F.unfold to [N, 9C, HW] (a 9x larger copy of x written and read),
one batched GEMM with the weight as [K, 9C], the bias added, the result viewed as NCHW."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, H, W, K = 64, 128, 56, 56, 128


class Model(nn.Module):
    def __init__(self, c_in, c_out, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(c_out, c_in, 3, 3, dtype=dtype) * (9 * c_in) ** -0.5)
        self.bias = nn.Parameter(torch.randn(c_out, dtype=dtype) * 0.1)

    def forward(self, x):
        n, c, h, w = x.shape
        cols = F.unfold(x, 3, padding=1)
        y = torch.matmul(self.weight.reshape(self.weight.shape[0], -1), cols)
        return (y + self.bias[:, None]).view(n, -1, h, w)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
