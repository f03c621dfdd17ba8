"""Level 3 style: 24 x (Linear, BatchNorm1d in training mode, ReLU) at a small batch.

Rounding differences amplified by the batch statistics: at BATCH=4 WIDTH=8 the AIR program's
float32 output differs from PyTorch's by rel_l2 1.8e-4 (tol 1e-4) although both follow the
same math; against the model run in float64 the reference is 2.4e-5 off, the AIR 1.8e-4
(PyTorch's CPU batch norm accumulates its statistics in double), and the AIR program run in
float64 matches the float64 reference to 1e-14, so it passes by the float64 rule
(docs/validate.md, "Comparison").  It failed validation before that rule.
"""
import torch
import torch.nn as nn

BATCH = 4
WIDTH = 8
DEPTH = 24


class Model(nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(width, width), nn.BatchNorm1d(width),
                                                    nn.ReLU()) for _ in range(depth)])

    def forward(self, x):
        return self.layers(x)


def get_inputs():
    return [torch.randn(BATCH, WIDTH)]


def get_init_inputs():
    return [WIDTH, DEPTH]
