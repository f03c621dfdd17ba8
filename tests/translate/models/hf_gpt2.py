"""Hugging Face: a small GPT2Model from transformers 4.57 (random init, no weights), built from a config as
a user does, in eval mode; 2 layers, width 64.  Translates and validates through torch.export."""
import torch
from transformers import GPT2Model, GPT2Config

B, S, VOCAB = 2, 16, 128
CONFIG = GPT2Config(vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = GPT2Model(CONFIG).eval()   # inference: no dropout

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]


def get_init_inputs():
    return []
