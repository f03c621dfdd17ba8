"""A small ResNet: a strided stem convolution, max pool, one residual block (conv, batch norm
in training mode, relu), global average pool and a linear head: convolution_backward,
native_batch_norm_backward and max_pool2d_with_indices_backward in one step."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 6
C = 16
H = 16


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(x + self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, C, 3, stride=2, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.block = Block(C)
        self.head = nn.Linear(C, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.stem(x)))
        x = self.block(x)
        return self.head(F.adaptive_avg_pool2d(x, 1).flatten(1))


def get_inputs():
    return [torch.randn(BATCH, 3, H, H)]
