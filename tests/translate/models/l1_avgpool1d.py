"""Level 1: 1-D average pooling, kernel 8, stride 4, padding 2 (count_include_pad default True)."""
import torch
import torch.nn as nn

BATCH = 64
CHANNELS = 128
LENGTH = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=8, stride=4, padding=2)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, LENGTH)]


def get_init_inputs():
    return []
