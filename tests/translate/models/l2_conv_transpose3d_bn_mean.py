"""Level 2: transposed conv3d -> batchnorm3d (training) -> subtract the spatial mean (keepdim)."""
import torch
import torch.nn as nn

BATCH = 4
IN_CHANNELS = 32
OUT_CHANNELS = 16
DEPTH = 8
HEIGHT = 64
WIDTH = 128


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm3d(out_channels)
        self.train()

    def forward(self, x):
        y = self.bn(self.deconv(x))
        return y - torch.mean(y, dim=(2, 3, 4), keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, DEPTH, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS]
