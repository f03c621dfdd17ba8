"""Bad input: a syntax error (a missing closing parenthesis) on line 13."""
import torch
import torch.nn as nn

DIM = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x * 2.0
