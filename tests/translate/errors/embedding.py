"""nn.Embedding with max_norm: the forward renormalises the rows it picks, in place in the
weight (aten.embedding_renorm_), which is refused; without max_norm it translates (AIR 1.1)."""
import torch
import torch.nn as nn

vocab, dim, seq = 100, 16, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim, max_norm=1.0)

    def forward(self, ids):
        return self.tok(ids) * 2.0


def get_inputs():
    return [torch.randint(0, vocab, (seq,))]
