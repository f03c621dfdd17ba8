"""A classifier whose forward returns its loss: a convolution, GroupNorm, GELU, global average
pool, a linear head, then cross entropy over class indices plus an auxiliary MSE (reduction
sum) on a second head: native_group_norm_backward, nll_loss_backward (with
_log_softmax_backward_data) and mse_loss_backward in one step."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH = 6
CLASSES = 10


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.gn = nn.GroupNorm(4, 16)
        self.head = nn.Linear(16, CLASSES)
        self.aux = nn.Linear(16, 2)

    def forward(self, x, labels, target):
        h = F.gelu(self.gn(self.conv(x))).mean((2, 3))
        ce = F.cross_entropy(self.head(h), labels)
        return ce + 0.5 * F.mse_loss(self.aux(h), target, reduction="sum")


def get_inputs():
    return [torch.randn(BATCH, 3, 8, 8), torch.randint(0, CLASSES, (BATCH,)),
            torch.randn(BATCH, 2)]


def get_init_inputs():
    return []
