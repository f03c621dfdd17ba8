"""An autocast region for CUDA (bf16 matmuls on the GPU) translated on a machine without CUDA:
PyTorch disables such a region with a warning, and the model used to translate as float32,
whose bound (f32 kernels) is above what the GPU runs in bf16.  Now the region stays on and is
refused, as errors/autocast_enabled is."""
import torch
import torch.nn as nn

N = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(N, N)

    def forward(self, x):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            return self.fc(x)


def get_inputs():
    return [torch.randn(N, N)]
