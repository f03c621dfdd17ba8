"""tanh(fc(relu(x))) with submodules `act` and `fc`: the model of the localisation tests
(tests/validate/localise/*.air).  The AIR's tmps `act` and `fc` are the outputs of these
submodules, so solar validate can check each AIR kernel on its own."""
import torch
import torch.nn as nn

B, D, H = 4, 16, 24


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.fc = nn.Linear(D, H)

    def forward(self, x):
        return torch.tanh(self.fc(self.act(x)))


def get_inputs():
    return [torch.randn(B, D)]
