"""Trap: in-place ops on intermediates (relu_, add_, mul_, clamp_, sub_ via -=) and an in-place
op on a view: torch.export functionalizes them, the translation must keep their values."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 1024
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x, bias):
        y = self.fc(x)
        y.relu_()
        y.add_(bias)
        y.mul_(0.5)
        y -= 0.25
        y[:, : OUT_FEATURES // 2].clamp_(max=1.0)   # in place through a slice view
        return y


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES), torch.randn(OUT_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
