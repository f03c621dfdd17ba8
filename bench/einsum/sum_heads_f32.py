"""Two-operand torch.einsum whose labels only one operand has are summed out first (as
torch.einsum does): x summed over its h, then a matrix-vector product (bench/einsum.sh)."""
import torch
import torch.nn as nn

B, H, N, M = 64, 32, 1024, 1024


class Model(nn.Module):
    def forward(self, x, w):
        return torch.einsum("bhn,nm->bm", x, w)


def get_inputs():
    return [torch.randn(B, H, N), torch.randn(N, M)]


def get_init_inputs():
    return []
