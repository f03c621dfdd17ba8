"""An index computed in forward by arithmetic (a hash of the ids, `(ids * 7) % 32`): AIR 1.1
declares value ranges on inputs and on the indices of the ops whose range solar check proves
(topk, argmax), so the embedding that reads through it is refused, naming the op that computed
it.  (An argmax's indices translate: models/argmax_as_index.py.)"""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(32, 8)

    def forward(self, ids):
        hashed = (ids * 7) % 32
        return self.tok(hashed)


def get_inputs():
    return [torch.randint(0, 1000, (4, 6))]
