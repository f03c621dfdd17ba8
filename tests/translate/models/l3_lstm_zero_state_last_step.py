"""Level 3 (nn.LSTM as KernelBench's LSTM problems use it): two unidirectional layers,
batch_first, no initial state (nn.LSTM makes zeros: eager's zeros kernels), then a linear layer
on the last time step, `out[:, -1, :]`, which reads index seq_len - 1 (symbolic: -D seq_len=...
still reads the last step)."""
import torch
import torch.nn as nn

batch_size = 4
seq_len = 12
input_size = 6
hidden_size = 8
num_layers = 2
output_size = 3


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1, :])


def get_inputs():
    return [torch.rand(batch_size, seq_len, input_size)]


def get_init_inputs():
    return [input_size, hidden_size, num_layers, output_size]
