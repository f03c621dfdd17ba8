"""Level 1: ATen's other names of pointwise operators (torch.multiply is aten.multiply.Tensor,
not aten.mul): multiply, divide, subtract, true_divide, greater, less_equal, negative,
absolute.  Each is the kernel of the operator it names."""
import torch
import torch.nn as nn

M = 64
N = 96


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        x = torch.multiply(a, b)
        x = torch.subtract(torch.divide(x, b.abs() + 1.0), a, alpha=2)
        x = torch.true_divide(torch.negative(x), 3.0) + torch.absolute(b)
        m = torch.greater(a, b).float() + torch.less_equal(a, 0.5).float()
        return torch.multiply(x, 2.0), m


def get_inputs():
    return [torch.randn(M, N), torch.randn(M, N)]


def get_init_inputs():
    return []
