"""Model file -> AIR text: the PyTorch frontend, then the emitter."""
import contextlib
import io
import warnings


class Result:
    def __init__(self, text, params, consts, graph, sizes, module):
        self.text, self.params, self.consts = text, params, consts
        self.graph, self.sizes, self.module = graph, sizes, module


def translate_file(path, defines, quiet=True):
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
        graph, fe = translate_module(torch, path, mod)
    graph.notes[:0] = header(path, fe)
    text, params, consts = Emitter(graph).emit()
    return Result(text, params, consts, graph, graph.sizes, mod)


def header(path, fe):
    import os
    return [f"{os.path.basename(path)}, translated by solar translate (torch.export, PyTorch "
            f"{fe.torch.__version__}).",
            f"Math mode at export: torch.backends.cuda.matmul.allow_tf32 = {fe.matmul_tf32}, "
            f"torch.backends.cudnn.allow_tf32 = {fe.cudnn_tf32}.",
            "One kernel per eager PyTorch kernel; views are index maps.", ""]
