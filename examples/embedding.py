"""nn.Embedding(128256, 4096), bf16, on [2, 2048] token ids (Llama 3's vocabulary and width).
AIR: embedding.air.

The table is held directly by the module as `weight`, so that its name matches the AIR tensor;
F.embedding is what nn.Embedding calls.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

B, S, V, D = 2, 2048, 128256, 4096


class Model(nn.Module):
    def __init__(self, num_embeddings, embedding_dim, dtype=torch.bfloat16):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(num_embeddings, embedding_dim, dtype=dtype))

    def forward(self, ids):
        return F.embedding(ids, self.weight)


def get_inputs():
    return [torch.randint(0, V, (B, S), dtype=torch.int64)]


def get_init_inputs():
    return [V, D]
