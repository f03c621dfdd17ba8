"""ConvTranspose2d, stride 2, padding 1, output_padding 1, 2 groups, no bias."""
import torch
import torch.nn as nn

N, C, K, H, W = 2, 8, 12, 10, 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(C, K, 3, stride=2, padding=1, output_padding=1, groups=2, bias=False)

    def forward(self, x):
        return self.up(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]
