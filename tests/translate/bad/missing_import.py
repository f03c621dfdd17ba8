"""Bad input: imports a module that does not exist (line 4)."""
import torch
import torch.nn as nn
import solar_corpus_no_such_module as fused

DIM = 1024


class Model(nn.Module):
    def forward(self, x):
        return fused.gelu(x)


def get_inputs():
    return [torch.randn(DIM)]


def get_init_inputs():
    return []
