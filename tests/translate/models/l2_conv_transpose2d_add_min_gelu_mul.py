"""Level 2: transposed conv2d (stride 2) -> add scalar -> min with 0 -> gelu -> multiply."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
IN_CHANNELS = 64
OUT_CHANNELS = 32
HEIGHT = 128
WIDTH = 256
ADD = 0.5
MUL = 2.0


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, add_value, multiply_value):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)
        self.add_value = add_value
        self.multiply_value = multiply_value

    def forward(self, x):
        y = torch.min(self.deconv(x) + self.add_value, torch.tensor(0.0))
        return F.gelu(y) * self.multiply_value


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, ADD, MUL]
