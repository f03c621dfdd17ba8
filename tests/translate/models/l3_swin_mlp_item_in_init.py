"""Level 3 (Swin-MLP style): the constructor reads values from tensors (the drop-path rates
`[x.item() for x in torch.linspace(0, 0.1, depth)]`, a grid side from a tensor's sqrt), which
meta tensors do not have: the translator builds such a model for real on the CPU and moves it
to meta.  Each block partitions the tokens into windows and mixes them with a grouped 1x1
Conv1d (a multi-head spatial MLP), then a residual MLP."""
import torch
import torch.nn as nn

B = 3
SIDE = 8
WIN = 4
D = 32
HEADS = 2
DEPTH = 2


class Block(nn.Module):
    def __init__(self, d, heads, win, drop_path):
        super().__init__()
        self.heads, self.win = heads, win
        self.norm = nn.LayerNorm(d)
        self.spatial = nn.Conv1d(heads * win * win, heads * win * win, kernel_size=1, groups=heads)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.keep = 1.0 - drop_path

    def forward(self, x):
        b, n, c = x.shape
        s, w, h = int(n ** 0.5), self.win, self.heads
        y = self.norm(x).view(b, s // w, w, s // w, w, c).permute(0, 1, 3, 2, 4, 5)
        y = y.reshape(-1, w * w, h, c // h).transpose(1, 2).reshape(-1, h * w * w, c // h)
        y = self.spatial(y).view(-1, h, w * w, c // h).transpose(1, 2).reshape(b, s // w, s // w, w, w, c)
        y = y.permute(0, 1, 3, 2, 4, 5).reshape(b, n, c)
        x = x + y * self.keep
        return x + self.mlp(x) * self.keep


class Model(nn.Module):
    def __init__(self, d, depth):
        super().__init__()
        rates = [r.item() for r in torch.linspace(0, 0.1, depth)]
        side = int(torch.tensor(float(SIDE * SIDE)).sqrt().item())
        self.pos = nn.Parameter(torch.zeros(1, side * side, d))
        self.blocks = nn.ModuleList([Block(d, HEADS, WIN, rates[i]) for i in range(depth)])

    def forward(self, x):
        x = x + self.pos
        for blk in self.blocks:
            x = blk(x)
        return x.mean(dim=1)


def get_inputs():
    return [torch.randn(B, SIDE * SIDE, D)]


def get_init_inputs():
    return [D, DEPTH]
