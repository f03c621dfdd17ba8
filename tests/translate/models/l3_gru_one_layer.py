"""Level 3 (nn.GRU, one layer, sequence first, h0 given): the output sequence.  Its
hand-written AIR, tests/translate/golden/l3_gru_one_layer.air, must count the same work."""
import torch
import torch.nn as nn

seq_len = 6
batch_size = 3
input_size = 5
hidden_size = 4


class Model(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size)

    def forward(self, x, h0):
        return self.gru(x, h0)[0]


def get_inputs():
    return [torch.rand(seq_len, batch_size, input_size), torch.rand(1, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size]
