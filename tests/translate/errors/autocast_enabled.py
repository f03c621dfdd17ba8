"""An autocast region that turns autocast on (bf16 matmuls inside): its casts are the
autocast's, which the exported graph holds as a higher-order operator that solar translate
does not read; refused at the region's line, never translated as if autocast were off."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            y = self.fc(x)
        return y.float() + 1.0


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
