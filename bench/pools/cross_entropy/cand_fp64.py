"""Pool cross_entropy, deliberately poor: the loss computed in fp64 (a 2 GiB fp64 copy of the
logits, fp64 arithmetic at 1/2 the fp32 rate), cast back to fp32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, V = 8192, 32000


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits.double(), target).to(logits.dtype)


def get_inputs():
    return [torch.randn(N, V, dtype=torch.float32), torch.randint(0, V, (N,))]


def get_init_inputs():
    return []
