"""nn.GRU, one bidirectional layer, sequence first, then a linear layer on the last time step
of the output, out[-1] (as KernelBench's recurrent problems do): pins the rnn kernel's text (the reverse direction reads time seq_len - 1 - t, the
gates r, z, n in PyTorch's order, r applied to W_hn h + b_hn) and the symbolic last index."""
import torch
import torch.nn as nn

seq_len = 5
batch_size = 2
input_size = 3
hidden_size = 4


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, bidirectional=True)
        self.fc = nn.Linear(2 * hidden_size, 3)

    def forward(self, x, h0):
        out, _ = self.gru(x, h0)
        return self.fc(out[-1])


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size), torch.rand(2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size]
