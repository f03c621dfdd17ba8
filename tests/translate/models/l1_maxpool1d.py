"""Level 1: 1-D max pooling, kernel 4, stride 2, padding 1, dilation 2."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 64
LENGTH = 8192
KERNEL = 4
STRIDE = 2


class Model(nn.Module):
    def __init__(self, kernel_size, stride):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size, stride=stride, padding=1, dilation=2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH)]


def get_init_inputs():
    return [KERNEL, STRIDE]
