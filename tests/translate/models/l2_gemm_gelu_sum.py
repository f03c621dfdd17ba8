"""Level 2: gemm -> scale -> gelu -> sum over features (keepdim)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 1024
IN_FEATURES = 8192
OUT_FEATURES = 4096
SCALE = 1.5


class Model(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        return F.gelu(self.fc(x) * self.scale).sum(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, SCALE]
