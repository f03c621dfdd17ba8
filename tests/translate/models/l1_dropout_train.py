"""Level 1: nn.Dropout(p=0.3) in a model left in training mode (nn.Module's default, as
KernelBench runs it): random numbers inside forward.  The AIR draws them into a `rand` tensor
(docs/air.md, "Random tensors"); validation fixes the draws on both sides (docs/validate.md,
"Random numbers").  Until issue 25 item 11 the translator refused this model
(bad/dropout_training.py: 'unsupported operator aten.dropout with p=0.1 in training mode')."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(p=0.3)

    def forward(self, x):
        return self.drop(x) * 2.0


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
