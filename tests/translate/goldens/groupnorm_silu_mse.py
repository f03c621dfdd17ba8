"""GroupNorm(4 groups) then SiLU, and a per-sample MSE of it against a target."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, H, W = 2, 16, 8, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(4, C)

    def forward(self, x, target):
        y = F.silu(self.gn(x))
        return y, F.mse_loss(y, target, reduction="none").mean(dim=(1, 2, 3))


def get_inputs():
    return [torch.randn(N, C, H, W), torch.randn(N, C, H, W)]
