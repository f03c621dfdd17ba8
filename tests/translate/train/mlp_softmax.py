import torch
import torch.nn as nn

BATCH = 16
DIN = 64
HID = 128
DOUT = 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(DIN, HID)
        self.ln = nn.LayerNorm(HID)
        self.fc2 = nn.Linear(HID, DOUT)

    def forward(self, x):
        h = torch.relu(self.ln(self.fc1(x)))
        return nn.functional.gelu(self.fc2(torch.softmax(h, dim=-1) * h))


def get_inputs():
    return [torch.randn(BATCH, DIN)]


def get_init_inputs():
    return []
