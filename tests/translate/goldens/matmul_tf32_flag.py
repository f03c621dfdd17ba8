"""f32 matmul with TF32 allowed by the model file: the kernel is [math = tf32]."""
import torch
import torch.nn as nn

torch.backends.cuda.matmul.allow_tf32 = True

M, K, N = 256, 128, 192


class Model(nn.Module):
    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]
