"""Level 1: Tensor.unfold (aten.unfold: sliding windows as a view), as ViT cuts patches
(x.unfold(2, p, p).unfold(3, p, p), KernelBench level3/28) and with an overlapping step whose
window count (L - size) // step + 1 does not divide: index maps, then a linear layer."""
import torch
import torch.nn as nn

B = 2
C = 3
IMG = 32
P = 8
L = 40


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(P * P * C, 16)

    def forward(self, img, s):
        x = img.unfold(2, P, P).unfold(3, P, P).reshape(img.shape[0], -1, P * P * img.shape[1])
        w = s.unfold(1, 5, 3)          # windows of 5 every 3: (40 - 5) // 3 + 1 = 12
        return self.proj(x), w.sum(-1)


def get_inputs():
    return [torch.randn(B, C, IMG, IMG), torch.randn(B, L)]


def get_init_inputs():
    return []
