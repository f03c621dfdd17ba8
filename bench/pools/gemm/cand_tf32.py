"""Pool gemm: fp32 operands on TF32 tensor cores (allow_tf32 on inside forward, restored after).
bf16 values are exact in TF32, so the products are exact; still 2x the bytes and half the rate
of bf16 tensor cores, plus the two upcast copies."""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        was = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            return torch.matmul(a.float(), b.float()).to(torch.bfloat16)
        finally:
            torch.backends.cuda.matmul.allow_tf32 = was


def get_inputs():
    return [torch.randn(M, K, dtype=torch.bfloat16), torch.randn(K, N, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
