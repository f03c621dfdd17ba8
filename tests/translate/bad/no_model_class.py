"""Bad input: the network class is called Net, not Model; get_inputs and get_init_inputs are fine.
The translator must say that the file has no class Model (naming line 1) and exit 1."""
import torch
import torch.nn as nn

BATCH = 16
DIM = 1024


class Net(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_init_inputs():
    return []
