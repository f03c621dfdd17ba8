"""Level 1: the tanh GELU written out by hand (GPT-2's 'new gelu'), with math.sqrt and
torch.pow(x, 3.0) on a 3-D input."""
import math
import torch
import torch.nn as nn

BATCH = 8
SEQ = 1024
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))
        return 0.5 * x * (1.0 + torch.tanh(inner))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM)]


def get_init_inputs():
    return []
