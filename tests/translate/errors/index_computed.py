"""An index computed in forward (argmax's): AIR 1.1 declares value ranges on inputs only, so
the embedding that reads through it is refused, naming the op that computed it."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(32, 8)

    def forward(self, scores):
        best = scores.argmax(dim=-1)
        return self.tok(best)


def get_inputs():
    return [torch.randn(4, 32)]
