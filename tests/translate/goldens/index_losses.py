"""AIR 1.1 class picks: cross_entropy with class weights, an ignore_index inside the classes
and label smoothing (mean: divided by the weights of the targets not ignored), and nll_loss
on [N, C, L] log-probabilities (K-dimensional targets [N, L]) with reduction none; the targets
declared in 0..C."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, C, L = 16, 10, 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("class_weight", torch.rand(C) + 0.5)

    def forward(self, logits, target, logp, target_nl):
        ce = F.cross_entropy(logits, target, weight=self.class_weight, ignore_index=0,
                             label_smoothing=0.1)
        nl = F.nll_loss(logp, target_nl, reduction="none")
        return ce, nl


def get_inputs():
    return [torch.randn(N, C), torch.randint(0, C, (N,)),
            torch.randn(N, C, L).log_softmax(1), torch.randint(0, C, (N, L))]
