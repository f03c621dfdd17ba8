"""Level 1: baddbmm, out = beta * bias + alpha * (a @ b) per batch."""
import torch
import torch.nn as nn

BATCH = 32
M = 128
K = 256
N = 512
ALPHA = 0.5
BETA = 2.0


class Model(nn.Module):
    def __init__(self, alpha, beta):
        super().__init__()
        self.alpha = alpha
        self.beta = beta

    def forward(self, bias, a, b):
        return torch.baddbmm(bias, a, b, beta=self.beta, alpha=self.alpha)


def get_inputs():
    return [torch.randn(BATCH, M, N), torch.randn(BATCH, M, K), torch.randn(BATCH, K, N)]


def get_init_inputs():
    return [ALPHA, BETA]
