"""Level 1: BatchNorm2d in eval mode: running statistics, a per-channel affine map."""
import torch
import torch.nn as nn

BATCH = 32
CHANNELS = 128
HEIGHT = 64
WIDTH = 256


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.linspace(-1.0, 1.0, channels))
            self.bn.running_var.copy_(torch.linspace(0.5, 2.0, channels))
        self.eval()

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]
