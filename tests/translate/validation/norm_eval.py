"""BatchNorm2d in eval mode plus LayerNorm over the last dim, side by side (a layer norm
after the batch norm would undo its per-channel scale and shift): at construction every one of
their parameters and buffers is all ones or all zeros (weight 1, bias 0, running mean 0,
running variance 1), so a translation that drops rstd or the gain computes the same numbers
on them.  tests/translate/validation/run.sh checks that solar translate's validation catches it."""
import torch
import torch.nn as nn

N, C, H, W = 2, 4, 6, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(C)
        self.ln = nn.LayerNorm(W)
        self.eval()

    def forward(self, x):
        return self.bn(x) + self.ln(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]
