"""No Model class: solar translate names the file and line 1."""
import torch


def get_inputs():
    return [torch.randn(2, 2)]
