"""Hugging Face: a small ViTModel from transformers 4.57 (random init, no weights), built from a config as
a user does, in eval mode; 2 layers, width 64.  Translates and validates through torch.export."""
import torch
from transformers import ViTModel, ViTConfig

B, S, VOCAB = 2, 16, 128
CONFIG = ViTConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, image_size=32, patch_size=8)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.model = ViTModel(CONFIG).eval()   # inference: no dropout

    def forward(self, px):
        return self.model(pixel_values=px).last_hidden_state


def get_inputs():
    return [torch.randn(B, 3, 32, 32)]


def get_init_inputs():
    return []
