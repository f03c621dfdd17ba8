"""nn.Embedding: a data-dependent gather, which AIR v1 cannot express."""
import torch
import torch.nn as nn

vocab, dim, seq = 100, 16, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)

    def forward(self, ids):
        return self.tok(ids) * 2.0


def get_inputs():
    return [torch.randint(0, vocab, (seq,))]
