"""Robot control policy: the MLP actor of an RL policy, bf16.
obs [B, 256] -> Linear 1024 -> GELU -> Linear 1024 -> GELU -> Linear 512 -> GELU -> Linear 32
-> tanh.  AIR: policy.air.  Must run at 500 Hz (2 ms a step) on a Jetson AGX Orin.

The parameters w1, b1 ... w4, b4 have nn.Linear's layout, [out_features, in_features], and are
held directly by the module so that their names match the AIR tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, OBS, H1, H2, H3, ACT = 1, 256, 1024, 1024, 512, 32


class Model(nn.Module):
    def __init__(self, obs, h1, h2, h3, act, dtype=torch.bfloat16):
        super().__init__()
        sizes = [(h1, obs), (h2, h1), (h3, h2), (act, h3)]
        for i, (n, k) in enumerate(sizes, start=1):
            setattr(self, f"w{i}", nn.Parameter(torch.randn(n, k, dtype=dtype) * k**-0.5))
            setattr(self, f"b{i}", nn.Parameter(torch.randn(n, dtype=dtype) * 0.1))

    def forward(self, obs):
        g1 = F.gelu(F.linear(obs, self.w1, self.b1))
        g2 = F.gelu(F.linear(g1, self.w2, self.b2))
        g3 = F.gelu(F.linear(g2, self.w3, self.b3))
        return torch.tanh(F.linear(g3, self.w4, self.b4))


def get_inputs():
    return [torch.randn(B, OBS, dtype=torch.bfloat16)]


def get_init_inputs():
    return [OBS, H1, H2, H3, ACT]
