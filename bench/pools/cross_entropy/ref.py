"""Pool cross_entropy, reference: F.cross_entropy(logits, target), mean over the rows, fp32
logits [8192, 32000] (a vocabulary-sized LM loss; 1 GiB read; memory-bound)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, V = 8192, 32000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target)


def get_inputs():
    return [torch.randn(N, V, dtype=torch.float32), torch.randint(0, V, (N,))]


def get_init_inputs():
    return []
