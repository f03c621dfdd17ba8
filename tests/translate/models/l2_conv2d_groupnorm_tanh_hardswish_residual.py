"""Level 2: conv2d -> groupnorm -> tanh -> hardswish, plus the conv output as a residual,
then logsumexp over channels (keepdim)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8
IN_CHANNELS = 32
OUT_CHANNELS = 64
GROUPS = 16
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3)
        self.gn = nn.GroupNorm(groups, out_channels)

    def forward(self, x):
        c = self.conv(x)
        y = F.hardswish(torch.tanh(self.gn(c)))
        return torch.logsumexp(c + y, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, GROUPS]
