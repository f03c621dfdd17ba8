"""The vision encoder of a vision-language-action policy (OpenVLA-style: Kim et al., "OpenVLA:
An Open-Source Vision-Language-Action Model", arXiv:2406.09246): a ViT-L/14 at 224 x 224 (the
DINOv2 / SigLIP encoders' geometry: 16 x 16 = 256 patch tokens of width 1024, 24 layers, 16
heads), transformers' ViTModel with random weights, bf16, in eval mode; one camera image per
control step.  Its patch features are what the language model's prefill reads
(examples/robotics/vla/README.md)."""
import torch
from transformers import ViTConfig, ViTModel

B = 1
IMG = 224
PATCH = 14
HEADS = 16
HEAD_DIM = 64
HIDDEN = HEADS * HEAD_DIM
INTER = 4 * HIDDEN
LAYERS = 24


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = ViTConfig(hidden_size=HIDDEN, intermediate_size=INTER, num_hidden_layers=LAYERS,
                        num_attention_heads=HEADS, image_size=IMG, patch_size=PATCH)
        cfg._attn_implementation = "sdpa"
        self.vit = ViTModel(cfg, add_pooling_layer=False).to(torch.bfloat16).eval()

    def forward(self, px):
        return self.vit(pixel_values=px).last_hidden_state


def get_inputs():
    return [torch.randn(B, 3, IMG, IMG, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
