"""Level 2: matmul without bias -> add a separate bias parameter -> relu -> divide by a constant."""
import torch
import torch.nn as nn

BATCH = 2048
IN_FEATURES = 1024
OUT_FEATURES = 4096
DIVISOR = 4.0


class Model(nn.Module):
    def __init__(self, in_features, out_features, divisor):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(out_features))
        self.divisor = divisor

    def forward(self, x):
        return torch.relu(self.fc(x) + self.bias) / self.divisor


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES, DIVISOR]
