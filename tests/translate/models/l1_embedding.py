"""Level 1: token embedding lookup (int64 ids -> rows of a table): an indirect, non-affine read."""
import torch
import torch.nn as nn

BATCH = 4
SEQ = 2048
VOCAB = 32768
DIM = 1024


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)

    def forward(self, ids):
        return self.embed(ids)


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM]
