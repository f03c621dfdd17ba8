"""A model without get_inputs() (tests/validate/errors/model_no_get_inputs.air)."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return x
