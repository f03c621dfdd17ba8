"""Level 1: triplet margin loss (margin 1, p=2) on anchor, positive and negative embeddings."""
import torch
import torch.nn as nn

BATCH = 1024
DIM = 4096


class Model(nn.Module):
    def __init__(self, margin):
        super().__init__()
        self.loss = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        return self.loss(anchor, positive, negative)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randn(BATCH, DIM), torch.randn(BATCH, DIM)]


def get_init_inputs():
    return [1.0]
