"""Level 1: nn.TripletMarginLoss (KernelBench level1/99).  aten.triplet_margin_loss is
CompositeImplicit: eager runs its decomposition (pairwise_distance twice: sub, add eps, norm;
then add margin, sub, clamp_min, mean), so the translator decomposes that operator alone and
translates the parts (torch_frontend.run_decomposing).  Refused before: unsupported operator."""
import torch
import torch.nn as nn

batch_size = 64
dim = 48


class Model(nn.Module):
    def __init__(self, margin=1.0):
        super().__init__()
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor, positive, negative):
        return self.loss_fn(anchor, positive, negative)


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return [0.5]
