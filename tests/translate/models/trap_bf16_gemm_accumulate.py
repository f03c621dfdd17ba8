"""Trap: bf16 inputs and bf16 parameters: the GEMM accumulates in f32 and rounds once to bf16;
the following sum over 4096 bf16 values also accumulates in f32 in PyTorch. A translation that
accumulates in bf16 loses most of the mantissa."""
import torch
import torch.nn as nn

BATCH = 512
IN_FEATURES = 4096
OUT_FEATURES = 8192


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features, dtype=torch.bfloat16)

    def forward(self, x):
        y = self.fc(x)
        return torch.sum(y, dim=-1)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES, dtype=torch.bfloat16)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
