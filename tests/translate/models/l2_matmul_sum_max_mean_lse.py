"""Level 2: matmul -> sum (keepdim) -> max (keepdim) -> mean -> logsumexp chain of reductions
that each leave a size-1 dim (the KernelBench reduction stack)."""
import torch
import torch.nn as nn

BATCH = 1024
IN_FEATURES = 2048
OUT_FEATURES = 512


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = self.fc(x)
        y = torch.sum(y, dim=1, keepdim=True)
        y = torch.max(y, dim=1, keepdim=True)[0]
        y = torch.mean(y, dim=1, keepdim=True)
        return torch.logsumexp(y, dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, IN_FEATURES)]


def get_init_inputs():
    return [IN_FEATURES, OUT_FEATURES]
