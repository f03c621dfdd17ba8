"""Level 1: a scalar tensor made in forward on the input's device (Swin V2's logit clamp,
KernelBench level3/30: torch.clamp(s, max=torch.log(torch.tensor(1. / 0.01, device=x.device)))):
on meta it had no value and the translation refused it ('a tensor constant made in forward');
kept on the CPU, its value is a literal of the AIR."""
import torch
import torch.nn as nn

B = 8
D = 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.log(10 * torch.ones(1)))

    def forward(self, x):
        s = torch.clamp(self.logit_scale, max=torch.log(torch.tensor(1. / 0.01, device=x.device))).exp()
        return x * s + torch.as_tensor(0.5, device=x.device)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
