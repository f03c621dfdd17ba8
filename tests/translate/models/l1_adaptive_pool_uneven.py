"""Level 1: adaptive average and max pooling to 7x7 and 5x5 outputs from an input whose size is
not a multiple of 7 or 5 (windows of unequal size overlap)."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 128
WIDTH = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.avg = nn.AdaptiveAvgPool2d((7, 7))
        self.max = nn.AdaptiveMaxPool2d((5, 5))

    def forward(self, x):
        return self.avg(x).sum(dim=(2, 3)) + self.max(x).amax(dim=(2, 3))


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
