"""A script-style model that exits when imported (tests/validate/errors/model_exits.air)."""
import torch  # noqa: F401

raise SystemExit(3)
