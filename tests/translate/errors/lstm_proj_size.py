"""nn.LSTM with proj_size (the hidden state projected by weight_hr): not translated yet."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8, proj_size=3)

    def forward(self, x):
        return self.lstm(x)[0]


def get_inputs():
    return [torch.rand(5, 2, 4)]


def get_init_inputs():
    return []
