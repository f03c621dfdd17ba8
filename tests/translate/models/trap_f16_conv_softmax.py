"""Trap: float16 convolution (parameters cast with .half() in the constructor) followed by a
softmax over channels in float16: the conv accumulates in f32, softmax computes in f32 and
stores f16."""
import torch
import torch.nn as nn

BATCH = 16
IN_CHANNELS = 32
OUT_CHANNELS = 64
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1).half()

    def forward(self, x):
        return torch.softmax(self.conv(x), dim=1)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH, dtype=torch.float16)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
