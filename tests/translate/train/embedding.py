"""A token embedding and a head: embedding_dense_backward is a scatter into the weight's
gradient through the ids (AIR 1.1), zeroed first."""
import torch
import torch.nn as nn

VOCAB = 100
DIM = 16
B, S = 4, 8


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, DIM)
        self.head = nn.Linear(DIM, VOCAB)

    def forward(self, ids):
        return self.head(torch.relu(self.emb(ids)))


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]
