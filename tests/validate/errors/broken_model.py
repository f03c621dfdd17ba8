"""A linear layer whose forward() fails as the AIR's param MODE says (the harness sets it):
1 raises, 2 sleeps past any --timeout the tests give.  For tests/validate/errors/model_*.air."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

B, DIN, MODE = 4, 16, 0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(DIN, DIN))

    def forward(self, x):
        if MODE == 1:
            raise RuntimeError("boom")
        if MODE == 2:
            time.sleep(120)
        return F.linear(x, self.weight)


def get_inputs():
    return [torch.randn(B, DIN)]
