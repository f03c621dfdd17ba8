"""Level 1: hinge loss mean(clamp(1 - y * t, min=0)) with +-1 targets, plus the library's
hinge_embedding_loss on the same pair."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 8192
DIM = 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        hinge = torch.mean(torch.clamp(1.0 - predictions * targets, min=0.0))
        return hinge + F.hinge_embedding_loss(predictions, targets, margin=1.0)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randint(0, 2, (BATCH, DIM)).float() * 2.0 - 1.0]


def get_init_inputs():
    return []
