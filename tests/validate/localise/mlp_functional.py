"""tanh(linear(relu(x))) written with functions and named locals (no submodules): the
original exposes its intermediates as forward()'s local variables `act` and `fc`."""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, D, H = 4, 16, 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc_weight = nn.Parameter(torch.randn(H, D) * D ** -0.5)
        self.fc_bias = nn.Parameter(torch.randn(H) * 0.1)

    def forward(self, x):
        act = torch.relu(x)
        fc = F.linear(act, self.fc_weight, self.fc_bias)
        return torch.tanh(fc)


def get_inputs():
    return [torch.randn(B, D)]
