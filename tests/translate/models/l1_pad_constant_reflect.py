"""Level 1: F.pad, constant (value 0.5, asymmetric (1, 2, 3, 0)) and reflect ((2, 2, 1, 1)),
both cropped back to one common shape and added."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 16
CHANNELS = 32
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        c = F.pad(x, (1, 2, 3, 0), mode="constant", value=0.5)     # H+3, W+3
        r = F.pad(x, (2, 2, 1, 1), mode="reflect")                  # H+2, W+4
        return c[:, :, :-1, :] + r[:, :, :, 1:]


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return []
