"""Pool conv2d, deliberately poor: the convolution in fp32 (fp32 copies of x and the weight,
TF32 off: fp32 SIMT), rounded to bf16 at the end."""
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
        return F.conv2d(x.float(), self.weight.float(), self.bias.float(), padding=1).to(x.dtype)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
