"""Level 1: nn.Unfold (aten.im2col): ViT-style patches (kernel = stride = the patch size,
then transposed to [B, patches, C*P*P]) and a general form (rectangular kernel, dilation,
padding, stride).  One copy kernel each, as eager's im2col, read through an index map; the
padded positions are 0 by a select on the iterators."""
import torch
import torch.nn as nn

B = 2
C = 3
H = 32
P = 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.patches = nn.Unfold(kernel_size=P, stride=P)
        self.cols = nn.Unfold(kernel_size=(3, 2), dilation=(1, 2), padding=1, stride=(2, 1))

    def forward(self, x):
        return self.patches(x).transpose(1, 2), self.cols(x)


def get_inputs():
    return [torch.randn(B, C, H, H)]


def get_init_inputs():
    return []
