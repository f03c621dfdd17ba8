"""Level 3 (nn.RNN, nonlinearity='relu', bias=False): two layers, batch_first, h0 given;
forward returns h_n only (aten.rnn_relu.input; without biases each step's pre-activation
starts at 0)."""
import torch
import torch.nn as nn

batch_size = 2
seq_len = 7
input_size = 5
hidden_size = 6
num_layers = 2


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers):
        super().__init__()
        self.rnn = nn.RNN(input_size, hidden_size, num_layers, nonlinearity="relu", bias=False,
                          batch_first=True)

    def forward(self, x, h0):
        _, h_n = self.rnn(x, h0)
        return h_n


def get_inputs():
    return [torch.rand(batch_size, seq_len, input_size),
            torch.rand(num_layers, batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers]
