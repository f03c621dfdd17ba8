"""Level 1: nn.Linear with bias (exports as permute + addmm)."""
import torch
import torch.nn as nn

BATCH = 128
IN_FEATURES = 4096
OUT_FEATURES = 1024


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
