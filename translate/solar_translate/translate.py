"""Model file -> AIR text: the PyTorch frontend, then the emitter."""
import contextlib
import io
import warnings


class Result:
    def __init__(self, text, params, consts, graph, sizes, module):
        self.text, self.params, self.consts = text, params, consts
        self.graph, self.sizes, self.module = graph, sizes, module


def translate_file(path, defines, quiet=True, train=None):
    """train: None (the forward pass), or {"loss": "sum"|"output", "optimizer":
    "none"|"sgd"|"adamw"} for the training step (train.py)."""
    import torch
    from .emit_air import Emitter
    from .torch_frontend import load_module, translate_module
    # the math mode is PyTorch's default unless the model file sets it
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    import logging
    logging.getLogger("torch").setLevel(logging.CRITICAL)
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        mod = load_module(path, defines)
        graph, fe = translate_module(torch, path, mod, train)
    graph.notes[:0] = header(path, fe, train)
    text, params, consts = Emitter(graph).emit()
    return Result(text, params, consts, graph, graph.sizes, mod)


def header(path, fe, train=None):
    import os
    step = []
    if train:
        opt = {"none": "no optimizer: the gradients are the outputs",
               "sgd": "torch.optim.SGD's foreach step (lr 1e-3)",
               "adamw": "torch.optim.AdamW's foreach step (lr 1e-3, betas 0.9 0.999, eps 1e-8, "
                        "weight decay 1e-2), its first"}[train["optimizer"]]
        loss = ("the sum of the floating outputs" if train["loss"] == "sum"
                else "the scalar forward() returns")
        step = [f"Training step (--train): forward, loss = {loss}, backward (make_fx through "
                f"autograd), {opt}.",
                "Groups: forward, backward, optimizer (solar analyze shows each group's share)."]
        return [f"{os.path.basename(path)}, translated by solar translate --train (PyTorch "
                f"{fe.torch.__version__})."] + step + [
                f"Math mode at export: torch.backends.cuda.matmul.allow_tf32 = {fe.matmul_tf32}, "
                f"torch.backends.cudnn.allow_tf32 = {fe.cudnn_tf32}.",
                "One kernel per eager PyTorch kernel; views are index maps.", ""]
    return [f"{os.path.basename(path)}, translated by solar translate (torch.export, PyTorch "
            f"{fe.torch.__version__}).",
            f"Math mode at export: torch.backends.cuda.matmul.allow_tf32 = {fe.matmul_tf32}, "
            f"torch.backends.cudnn.allow_tf32 = {fe.cudnn_tf32}.",
            "One kernel per eager PyTorch kernel; views are index maps.", ""]
