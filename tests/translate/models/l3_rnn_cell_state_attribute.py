"""Level 3 (a vanilla RNN cell): a plain tensor attribute made in __init__ (self.hidden, neither
parameter nor buffer) that forward copies an input into in place and then reassigns.
torch.export refuses an assigned tensor attribute; the translator makes it a buffer: the
copy_ is eager's copy kernel, the reassignment is no kernel (eager rebinds the name).  The
concatenated width is input_size + hidden_size, a sum of two constants."""
import torch
import torch.nn as nn

batch_size = 8
input_size = 96
hidden_size = 128
output_size = 32


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden = torch.randn((batch_size, hidden_size))
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.h2o = nn.Linear(hidden_size, output_size)
        self.tanh = nn.Tanh()

    def forward(self, x, initial_hidden=None):
        if initial_hidden is not None:
            self.hidden.copy_(initial_hidden)
        self.hidden = self.hidden.to(x.device).to(x.dtype)
        combined = torch.cat((x, self.hidden), dim=1)
        self.hidden = self.tanh(self.i2h(combined))
        return self.h2o(self.hidden)


def get_inputs():
    return [torch.rand(batch_size, input_size), torch.rand(batch_size, hidden_size)]


def get_init_inputs():
    return [input_size, hidden_size, output_size]
