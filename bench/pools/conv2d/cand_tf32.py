"""Pool conv2d: the fp32 convolution of cand_fp32.py on TF32 tensor cores (cuDNN allow_tf32 on
inside forward, restored after); bf16 values are exact in TF32, so only the upcast copies and
the half-rate datapath remain."""
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
        was = torch.backends.cudnn.allow_tf32
        torch.backends.cudnn.allow_tf32 = True
        try:
            return F.conv2d(x.float(), self.weight.float(), self.bias.float(), padding=1).to(x.dtype)
        finally:
            torch.backends.cudnn.allow_tf32 = was


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [C, K]
