"""Level 3 (nn.RNN, tanh): one bidirectional layer, sequence first, no initial state (zeros);
forward returns the sum over time of the output (aten.rnn_tanh.input, then a reduction)."""
import torch
import torch.nn as nn

seq_len = 6
batch_size = 3
input_size = 4
hidden_size = 5


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size, bidirectional=True)

    def forward(self, x):
        out, _ = self.rnn(x)
        return out.sum(0)


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_size]
