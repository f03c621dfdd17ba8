"""nn.Linear with bias then ReLU, f32: two kernels (a GEMM with the bias, the ReLU)."""
import torch
import torch.nn as nn

batch, d_in, d_out = 64, 512, 1024


class Model(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.fc = nn.Linear(d_in, d_out)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(batch, d_in)]


def get_init_inputs():
    return [d_in, d_out]
