"""Level 2: linear -> layernorm -> swish (x * sigmoid(x)) -> multiply by a learned vector."""
import torch
import torch.nn as nn

BATCH = 1024
IN_FEATURES = 2048
OUT_FEATURES = 4096


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.ln = nn.LayerNorm(out_features)
        self.gamma = nn.Parameter(torch.randn(out_features))

    def forward(self, x):
        y = self.ln(self.fc(x))
        return y * torch.sigmoid(y) * self.gamma


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
