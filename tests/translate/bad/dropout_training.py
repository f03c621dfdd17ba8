"""Bad: nn.Dropout(p=0.1) in a model left in training mode (nn.Module's default, as KernelBench
runs it): random numbers inside forward, which AIR cannot express; translate refuses it."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.1)

    def forward(self, x):
        return self.drop(x) * 2.0


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
