"""Level 1: a Llama-3-sized token embedding (a 128 256-token vocabulary, bf16 rows of 4096): a
data-dependent gather `E[ids[b, s], d]`, the ids declared in 0..VOCAB (AIR 1.1)."""
import torch
import torch.nn as nn

BATCH = 2
SEQ = 1024
VOCAB = 128256
DIM = 4096


class Model(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, dim, dtype=torch.bfloat16)

    def forward(self, input_ids):
        return self.embed_tokens(input_ids)


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM]
