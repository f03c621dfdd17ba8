"""An LSTM under --train: refused (cuDNN's persistent kernels; the tracer would unroll it)."""
import torch
import torch.nn as nn

B, T, D = 2, 4, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(D, D, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]


def get_inputs():
    return [torch.randn(B, T, D)]
