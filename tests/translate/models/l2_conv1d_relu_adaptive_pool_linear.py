"""Level 2: conv1d (dilation 2) -> relu -> adaptive avg pool to 1 -> flatten -> linear."""
import torch
import torch.nn as nn

BATCH = 64
IN_CHANNELS = 32
OUT_CHANNELS = 128
LENGTH = 2048
CLASSES = 16


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, classes):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, 5, dilation=2, padding=4)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(out_channels, classes)

    def forward(self, x):
        return self.fc(self.pool(torch.relu(self.conv(x))).flatten(1))


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, LENGTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, CLASSES]
