"""Level 1: a Python float argument to forward (forward(A, s), s = 3.14 from get_inputs()):
torch.export specializes it, the AIR multiplies by the literal, and the harness binds no
tensor to it."""
import torch
import torch.nn as nn

M = 256
N = 128


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, s, b):
        return a * s + b


def get_inputs():
    return [torch.randn(M, N), 3.14, torch.randn(M, N)]


def get_init_inputs():
    return []
