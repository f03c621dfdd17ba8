"""Level 2: conv3d (stride 2) -> mish -> tanh -> clamp to [-0.8, 0.8]."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8
IN_CHANNELS = 16
OUT_CHANNELS = 32
DEPTH = 128
HEIGHT = 64
WIDTH = 256


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, stride=2)

    def forward(self, x):
        return torch.clamp(torch.tanh(F.mish(self.conv(x))), -0.8, 0.8)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
