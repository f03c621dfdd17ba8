"""An embedding whose 16 token ids take only 4 values, against an AIR that assumes at least 8."""
import torch
import torch.nn as nn
import torch.nn.functional as F

T, V, D = 16, 10, 4


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(V, D))

    def forward(self, ids):
        return F.embedding(ids, self.weight)


def get_inputs():
    return [torch.arange(T, dtype=torch.int64) % 4]


def get_init_inputs():
    return []
