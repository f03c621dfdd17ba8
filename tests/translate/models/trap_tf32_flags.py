"""Trap: TF32 flags set at module level, the matmul flag on and the cuDNN flag off. A GPU run
of the matmul may use TF32 (10-bit mantissa) while the conv must not; the translation and
its validation tolerance must follow the flags, not assume full f32."""
import torch
import torch.nn as nn

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = False

BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 128
HEIGHT = 256
WIDTH = 16
HIDDEN = 1024


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, hidden):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.fc = nn.Linear(out_channels, hidden)

    def forward(self, x):
        y = self.conv(x).mean(dim=(2, 3))
        return self.fc(y)


def get_inputs():
    return [torch.randn(BATCH, IN_CHANNELS, HEIGHT, WIDTH)]


def get_init_inputs():
    return [IN_CHANNELS, OUT_CHANNELS, HIDDEN]
