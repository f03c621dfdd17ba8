"""Level 3 (nn.LSTM with proj_size): two bidirectional layers, batch_first, h0 [.., proj_size]
and c0 [.., hidden_size] given.  Each step's h is W_hr (o * tanh(c)), a third GEMM per step;
the output and h_n have proj_size features per direction, c_n hidden_size."""
import torch
import torch.nn as nn

batch_size = 3
seq_len = 5
input_size = 6
hidden_size = 9
proj_size = 4
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, proj_size, num_layers):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True,
                            bidirectional=True, proj_size=proj_size)

    def forward(self, x, h0, c0):
        out, (h_n, c_n) = self.lstm(x, (h0, c0))
        return out, h_n, c_n


def get_inputs():
    return [torch.rand(batch_size, seq_len, input_size),
            torch.rand(num_layers * 2, batch_size, proj_size),
            torch.rand(num_layers * 2, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, proj_size, num_layers]
