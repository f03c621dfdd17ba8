"""int32 token ids widened with .long() before the embedding: the cast keeps every value, so the
gather reads the int32 input itself (declared in 0..VOCAB) and the cast stays a kernel of its
own, as eager runs it.
# corpus: translate-only until validate runs data indices (issue 21)"""
import torch
import torch.nn as nn

B, S, VOCAB, DIM = 4, 32, 300, 16


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)

    def forward(self, ids):
        return self.tok(ids.long())


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S), dtype=torch.int32)]
