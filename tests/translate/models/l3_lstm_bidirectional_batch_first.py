"""Level 3 (nn.LSTM): two bidirectional layers, batch_first, h0 and c0 given; forward returns
the output sequence and both final states.  One `rnn` kernel for the call (docs/bounds.md,
rule "recurrent layers"): per layer and direction a loop over the time steps, the reverse
direction walking time backwards, the second layer reading both directions of the first."""
import torch
import torch.nn as nn

batch_size = 3
seq_len = 6
input_size = 5
hidden_size = 4
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            bidirectional=True)

    def forward(self, x, h0, c0):
        out, (h_n, c_n) = self.lstm(x, (h0, c0))
        return out, h_n, c_n


def get_inputs():
    return [torch.rand(batch_size, seq_len, input_size),
            torch.rand(num_layers * 2, batch_size, hidden_size),
            torch.rand(num_layers * 2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
