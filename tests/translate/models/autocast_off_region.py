"""An autocast region turned off by the tensors' own device type, as Hugging Face models guard
their rotary embeddings.  Traced on the meta device it used to stop torch.export with
'unsupported scalarType' (no autocast dtype for meta); then it traced as on the CPU and the
region's higher-order operator was refused at its line; now a region that turns autocast off
where it is off already is no region (torch_frontend.meta_autocast), and the model translates
and validates.  errors/autocast_enabled.py: a region that turns autocast on is still refused."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        with torch.autocast(device_type=x.device.type, enabled=False):
            y = x.float() * 2.0
        return y + 1.0


def get_inputs():
    return [torch.randn(8, 16)]


def get_init_inputs():
    return []
