"""Heads of a fixed size written as literals: view(b, s, 12, 8) needs DIM == 96, so no smaller
DIM builds the model and the validation runs at the model's own sizes, which solar translate
must say (a warning) instead of silently validating a large model on the CPU
(tests/translate/validation/run.sh)."""
import torch
import torch.nn as nn

DIM = 96


class Model(nn.Module):
    def forward(self, x):
        b, s, _ = x.shape
        q = x.view(b, s, 12, 8).transpose(1, 2)
        return torch.softmax(q @ q.transpose(-1, -2), dim=-1)


def get_inputs():
    return [torch.randn(2, 16, DIM)]
