"""nn.LSTM with dropout between its two layers, in training mode (as constructed): random
numbers inside forward, refused with the line of the call."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, 2, dropout=0.5)

    def forward(self, x):
        return self.lstm(x)[0]


def get_inputs():
    return [torch.rand(5, 2, 4)]


def get_init_inputs():
    return []
