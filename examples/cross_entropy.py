"""F.cross_entropy(logits, target) of an LM head: [4096, 128256] bf16 logits (Llama 3's
vocabulary), class-index targets, mean reduction, computed in f32.  AIR: cross_entropy.air."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, V = 4096, 128256


class Model(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits.float(), target)


def get_inputs():
    return [torch.randn(N, V, dtype=torch.bfloat16), torch.randint(0, V, (N,), dtype=torch.int64)]


def get_init_inputs():
    return []
