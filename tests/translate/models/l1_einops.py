"""Level 1: a model that uses einops (ViT-style patches with the Rearrange layer, a
multi-head split with rearrange, a mean with reduce, a broadcast with repeat): einops calls
reshape, permute, mean and expand, which torch.export traces like any other call."""
import torch
import torch.nn as nn
from einops import rearrange, reduce, repeat
from einops.layers.torch import Rearrange

B = 5
C = 3
IMG = 48
P = 8
D = 96
HEADS = 3
# census: D=24


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.patches = nn.Sequential(
            Rearrange("b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=P, p2=P),
            nn.Linear(P * P * C, D))
        self.cls = nn.Parameter(torch.randn(1, 1, D))

    def forward(self, img):
        x = self.patches(img)
        cls = repeat(self.cls, "1 1 d -> b 1 d", b=x.shape[0])
        x = torch.cat((cls, x), dim=1)
        q = rearrange(x, "b n (h d) -> b h n d", h=HEADS)
        att = (q @ q.transpose(-1, -2)).softmax(dim=-1) @ q
        y = rearrange(att, "b h n d -> b n (h d)")
        return reduce(y, "b n d -> b d", "mean")


def get_inputs():
    return [torch.randn(B, C, IMG, IMG)]


def get_init_inputs():
    return []
