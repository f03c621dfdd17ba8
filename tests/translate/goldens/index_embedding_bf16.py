"""AIR 1.1: nn.Embedding in bf16 with padding_idx (only the backward reads it), scaled by
sqrt(DIM) as Gemma does: one gather kernel `E[ids[b, s], d]`, the ids declared in 0..VOCAB."""
import torch
import torch.nn as nn

B, S, VOCAB, DIM = 2, 16, 1000, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM, padding_idx=0, dtype=torch.bfloat16)

    def forward(self, ids):
        return self.tok(ids) * DIM ** 0.5


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]
