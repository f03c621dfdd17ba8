"""A frozen embedding-like projection (requires_grad False) before a trained head: the frozen
layer gets no gradient kernel and no gradient output, and stays an `in` tensor."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.frozen = nn.Linear(DIM, DIM)
        self.frozen.requires_grad_(False)
        self.head = nn.Linear(DIM, DIM)

    def forward(self, x):
        return self.head(torch.sigmoid(self.frozen(x)))


def get_inputs():
    return [torch.randn(BATCH, DIM)]
