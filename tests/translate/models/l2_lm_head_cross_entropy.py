"""Level 2: a language model's head and training loss: final RMSNorm, the LM head (hidden ->
vocabulary logits, no bias), then cross_entropy against the next-token targets (a log_softmax
kernel, then the pick `logp[i, tgt[i]]`: the targets declared in 0..VOCAB, AIR 1.1)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS = 2048
HIDDEN = 1024
VOCAB = 32000


class Model(nn.Module):
    def __init__(self, hidden, vocab):
        super().__init__()
        self.norm = nn.RMSNorm(hidden, eps=1e-5)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)

    def forward(self, h, targets):
        logits = self.lm_head(self.norm(h))
        return F.cross_entropy(logits, targets)


def get_inputs():
    return [torch.randn(TOKENS, HIDDEN), torch.randint(0, VOCAB, (TOKENS,))]


def get_init_inputs():
    return [HIDDEN, VOCAB]
