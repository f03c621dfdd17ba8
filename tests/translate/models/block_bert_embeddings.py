"""Whole block: BERT's embeddings (Hugging Face BertEmbeddings, eval): word + token-type +
position embeddings (the positions a buffer `arange(MAX_POS)` sliced to the sequence), summed,
then LayerNorm; dropout is the identity in eval.  Three gathers with data indices (AIR 1.1):
input_ids in 0..VOCAB, token_type_ids in 0..TYPES, position_ids in 0..MAX_POS."""
import torch
import torch.nn as nn

BATCH = 8
SEQ = 512
VOCAB = 30522
HIDDEN = 768
MAX_POS = 512
TYPES = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, HIDDEN, padding_idx=0)
        self.position_embeddings = nn.Embedding(MAX_POS, HIDDEN)
        self.token_type_embeddings = nn.Embedding(TYPES, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        self.register_buffer("position_ids", torch.arange(MAX_POS).expand((1, -1)), persistent=False)
        self.eval()

    def forward(self, input_ids, token_type_ids):
        seq = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq]
        e = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        e = e + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(e))


def get_inputs():
    return [torch.randint(0, VOCAB, (BATCH, SEQ)), torch.randint(0, TYPES, (BATCH, SEQ))]


def get_init_inputs():
    return []
