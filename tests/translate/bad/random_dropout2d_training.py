"""Bad: nn.Dropout2d(p=0.2) in training mode drops whole channels (one draw per batch and
channel, aten.feature_dropout): not translated yet (dropout and native_dropout are,
docs/translate.md "Random numbers"); translate refuses it at the line that calls it."""
import torch
import torch.nn as nn

BATCH = 8
CH = 16
HW = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout2d(p=0.2)

    def forward(self, x):
        return self.drop(x) + 1.0


def get_inputs():
    return [torch.randn(BATCH, CH, HW, HW)]


def get_init_inputs():
    return []
