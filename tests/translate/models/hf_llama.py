"""Hugging Face: a small LlamaModel from transformers 4.57 (random init, no weights), built from a config as
a user does, in eval mode; 2 layers, width 64.  Translates and validates through torch.export."""
import torch
from transformers import LlamaModel, LlamaConfig

B, S, VOCAB = 2, 16, 128
CONFIG = LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = LlamaModel(CONFIG).eval()   # inference: no dropout

    def forward(self, ids):
        return self.model(input_ids=ids, use_cache=False).last_hidden_state


def get_inputs():
    return [torch.randint(0, VOCAB, (B, S))]


def get_init_inputs():
    return []
