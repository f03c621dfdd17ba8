"""Trap: expand (a stride-0 view) of a (B, 1, D) tensor to (B, S, D), multiplied with a
per-channel (C, 1, 1) parameter broadcast over an image, unsqueeze/squeeze round trips."""
import torch
import torch.nn as nn

BATCH = 16
SEQ = 512
DIM = 256
CHANNELS = 32
HEIGHT = 64
WIDTH = 128


class Model(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(channels, 1, 1))

    def forward(self, x, pooled, img):
        e = pooled.expand(-1, x.shape[1], -1)           # (B, 1, D) -> (B, S, D), stride 0
        a = (x * e).sum(dim=1)                          # (B, D)
        b = (img * self.scale).mean(dim=(-1, -2))       # (B, C)
        return a.unsqueeze(1).squeeze(1)[:, :CHANNELS] + b


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM), torch.randn(BATCH, 1, DIM),
            torch.randn(BATCH, CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [CHANNELS]
