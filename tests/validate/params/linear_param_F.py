"""A linear layer whose model imports torch.nn.functional as F, while its AIR
(linear_param_F.air) names its feature size F: the harness must not set the model's F."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, DIN = 4, 16


class Model(nn.Module):
    def __init__(self, din):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(din, din))

    def forward(self, x):
        return F.linear(x, self.weight)


def get_inputs():
    return [torch.randn(B, DIN)]


def get_init_inputs():
    return [DIN]
