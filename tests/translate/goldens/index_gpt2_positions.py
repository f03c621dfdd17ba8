"""GPT-2's embeddings: token embedding wte(input_ids) plus position embedding
wpe(arange(SEQ)) computed in forward: the ids are a data index (AIR 1.1, in 0..VOCAB), the
arange's values an affine one (`wpe[s, d]`: no range needed; its kernel stays, as eager runs it).
# corpus: translate-only until validate runs data indices (issue 21)"""
import torch
import torch.nn as nn

B, SEQ, VOCAB, MAX_POS, DIM = 2, 64, 500, 128, 32


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, DIM)
        self.wpe = nn.Embedding(MAX_POS, DIM)

    def forward(self, input_ids):
        pos = torch.arange(0, input_ids.shape[1], dtype=torch.long, device=input_ids.device)
        return self.wte(input_ids) + self.wpe(pos.unsqueeze(0))


def get_inputs():
    return [torch.randint(0, VOCAB, (B, SEQ))]
