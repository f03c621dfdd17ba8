"""Trap: nn.Dropout in an eval-mode model is the identity (no random op may appear), and
a module-level constant that is a float (a scale), not a size."""
import torch
import torch.nn as nn

BATCH = 512
IN_FEATURES = 2048
OUT_FEATURES = 1024
SCALE = 0.75


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.drop = nn.Dropout(p=0.3)
        self.scale = scale
        self.eval()

    def forward(self, x):
        return self.drop(self.fc(x)) * self.scale


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALE]
