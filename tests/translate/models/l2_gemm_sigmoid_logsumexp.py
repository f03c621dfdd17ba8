"""Level 2: linear -> sigmoid -> linear -> logsumexp over features."""
import torch
import torch.nn as nn

BATCH = 256
IN_FEATURES = 2048
HIDDEN = 4096
OUT_FEATURES = 1024


class Model(nn.Module):
    def __init__(self, in_features, hidden, out_features):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden)
        self.fc2 = nn.Linear(hidden, out_features)

    def forward(self, x):
        return torch.logsumexp(self.fc2(torch.sigmoid(self.fc1(x))), dim=1)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, HIDDEN, OUT_FEATURES]
