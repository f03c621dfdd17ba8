"""2x2 max pooling, stride 2, f32 NCHW, N=32 C=64 112x112 -> 56x56.  AIR: maxpool2x2.air."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, H, W = 32, 64, 112, 112


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(x, kernel_size=2, stride=2)


def get_inputs():
    return [torch.randn(N, C, H, W, dtype=torch.float32)]


def get_init_inputs():
    return []
