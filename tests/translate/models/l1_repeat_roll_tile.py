"""repeat (with a new leading dim), torch.roll (one dim, two dims with a negative shift, a shift
past the size), torch.tile with fewer repeats than dims, repeat_interleave with an int: each a
copy through an index map (% for repeat, tile and roll; // for repeat_interleave)."""
import torch
import torch.nn as nn

N, M, C = 6, 5, 4


class Model(nn.Module):
    def forward(self, x, y):
        return (x.repeat(2, 3), x.repeat(2, 1, 1), torch.roll(x, 1, 0),
                torch.roll(x, shifts=(-2, 3), dims=(0, 1)), y.tile((2,)),
                y.repeat_interleave(2, dim=1), torch.roll(x, 7, 1))


def get_inputs():
    return [torch.randn(N, M), torch.randn(C, N)]


def get_init_inputs():
    return []
