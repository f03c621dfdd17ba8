"""softplus (beta, threshold), hardsigmoid and hardswish after a linear layer: their pointwise
backward operators (softplus_backward, hardsigmoid_backward, hardswish_backward)."""
import torch, torch.nn as nn, torch.nn.functional as F
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
    def forward(self, x):
        h = self.fc(x)
        return F.softplus(h, beta=2.0, threshold=1.0) + F.hardsigmoid(h * 4) + F.hardswish(h * 4)
def get_inputs():
    return [torch.randn(8, 16)]
def get_init_inputs():
    return []
