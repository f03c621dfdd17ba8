"""Level 2: ConvTranspose2d, then a scale and a bias kept as plain tensor attributes
(self.scale = torch.randn(...) in __init__, not registered): torch.export lifts them as
constants, which were refused ('unsupported graph input'); the translator makes them buffers,
read as `in` tensors that the harness binds by their path."""
import torch
import torch.nn as nn

B = 4
C = 16
H = 24


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.up = nn.ConvTranspose2d(c, c // 2, kernel_size=2, stride=2)
        self.scale = torch.randn(1, c // 2, 1, 1)
        self.up.shift = torch.randn(c // 2, 1, 1)

    def forward(self, x):
        return torch.relu(self.up(x) * self.scale + self.up.shift)


def get_inputs():
    return [torch.randn(B, C, H, H)]


def get_init_inputs():
    return [C]
