"""Level 3 (nn.GRU): two bidirectional layers, sequence first, h0 given; forward returns the
output sequence and h_n.  The new gate is tanh(W_in x + b_in + r * (W_hn h + b_hn)) with r
applied after b_hn, as PyTorch computes it, and h' = (h - n) * z + n."""
import torch
import torch.nn as nn

seq_len = 5
batch_size = 3
input_size = 4
hidden_size = 6
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers, bidirectional=True)

    def forward(self, x, h0):
        out, h_n = self.gru(x, h0)
        return out, h_n


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size),
            torch.rand(num_layers * 2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
