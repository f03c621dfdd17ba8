"""An embedding whose token ids include values past the table (get_inputs draws up to V + 4):
the AIR declares ids in 0..V, so validate refuses the data before running the AIR."""
import torch
import torch.nn as nn
import torch.nn.functional as F

T, V, D = 16, 10, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(V + 4, D))

    def forward(self, ids):
        return F.embedding(ids, self.weight)


def get_inputs():
    return [torch.arange(T, dtype=torch.int64) % (V + 4)]


def get_init_inputs():
    return []
