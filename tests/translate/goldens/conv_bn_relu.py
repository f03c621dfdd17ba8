"""Conv2d 3x3 stride 2 pad 1 with bias, BatchNorm2d (training mode, as constructed: batch statistics), ReLU."""
import torch
import torch.nn as nn

N, C, K, H, W = 8, 16, 32, 32, 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(C, K, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(K)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(N, C, H, W)]
