"""Level 1: nn.Linear without bias on a 3-D input (batch, tokens, features): a view to 2-D, mm, view back."""
import torch
import torch.nn as nn

BATCH = 8
TOKENS = 512
IN_FEATURES = 1024
OUT_FEATURES = 2048


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.proj = nn.Linear(in_features, out_features, bias=False)

    def forward(self, x):
        return self.proj(x)


def get_inputs():
    return [torch.randn(BATCH, TOKENS, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
