"""tests/translate/train/amp.py at a benchmark size (docs/soundness.md, "Training steps"): an MLP
block trained under torch.autocast("cuda", bfloat16), f32 weights."""
import torch
import torch.nn as nn
import torch.nn.functional as F

BATCH, DIM, HID = 8192, 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(DIM)
        self.up = nn.Linear(DIM, HID)
        self.down = nn.Linear(HID, DIM)

    def forward(self, x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            h = self.down(F.gelu(self.up(self.norm(x))))
            logits = h @ self.up.weight.t()
            return F.cross_entropy(logits, y)


def get_inputs():
    return [torch.randn(BATCH, DIM), torch.randint(0, HID, (BATCH,))]


def get_init_inputs():
    return []
