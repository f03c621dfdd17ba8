"""Trap: a permuted (non-contiguous) view added to a contiguous tensor of the permuted shape,
then a second permute back: the translation must index the stored layout, not the logical one."""
import torch
import torch.nn as nn

BATCH = 16
CHANNELS = 64
HEIGHT = 128
WIDTH = 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        # x: NCHW stored, y: NHWC stored
        z = x.permute(0, 2, 3, 1) + y
        return z.permute(0, 3, 1, 2) * 2.0


def get_inputs():
    return [torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH), torch.randn(BATCH, HEIGHT, WIDTH, CHANNELS)]


def get_init_inputs():
    return []
