"""Bad input: a Model class but no get_inputs function (the file names get_input, singular).
The translator must say get_inputs is missing (naming line 1)."""
import torch
import torch.nn as nn

DIM = 1024


class Model(nn.Module):
    def forward(self, x):
        return x.exp()


def get_input():
    return [torch.randn(DIM)]


def get_init_inputs():
    return []
