"""Level 1: BatchNorm1d on (batch, features), training mode, affine=False, momentum 0.2."""
import torch
import torch.nn as nn

BATCH = 4096
FEATURES = 1024


class Model(nn.Module):
    def __init__(self, features):
        super().__init__()
        self.bn = nn.BatchNorm1d(features, affine=False, momentum=0.2)
        self.train()

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, FEATURES)]


def get_init_inputs():
    return [FEATURES]
