"""The user's Python file, for both frontends: executed as a module with every error located.

`exec_file` compiles and runs the file as a fresh module (its folder on sys.path, so that it
may import its neighbours); a file that cannot be read, does not compile or raises while it is
imported is a TranslateError at the file's line.  `model_line` finds that line in a
traceback (`stack_line` on the running stack), `first_line` the first line of an exception's text for the message.
"""
import importlib.util
import os
import re
import sys
import traceback

from .opgraph import TranslateError


def model_line(exc, path):
    """The last line of the model file in exc's traceback (or in its text), or None."""
    line = None
    real = os.path.realpath(path)
    for fr in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fr.filename) == real:
            line = fr.lineno
    if line is None:
        for m in re.finditer(r'File "([^"]+)", line (\d+)', str(exc)):
            if os.path.realpath(m.group(1)) == real:
                line = int(m.group(2))
    return line


def stack_line(path):
    """The innermost line of the model file on the current stack, or None (for an error raised
    while the file's code runs, before any exception exists to read: model_line's twin)."""
    real = os.path.realpath(path)
    return next((fr.lineno for fr in reversed(traceback.extract_stack())
                 if os.path.realpath(fr.filename) == real), None)


def first_line(exc):
    s = str(exc).strip().splitlines()
    s = [x for x in s if x.strip()]
    return f"{type(exc).__name__}: {s[0].strip()}" if s else type(exc).__name__


def exec_file(path, prefix, noun):
    """The module of the file at path, named prefix + the file's name; noun ("model", "file")
    names it in the messages."""
    try:
        src = open(path, "rb").read()
    except OSError as e:
        raise TranslateError(f"cannot read the {noun}: {e.strerror}", status=2)
    try:
        code = compile(src, path, "exec")
    except SyntaxError as e:
        raise TranslateError(f"not a Python file: {e.msg}", e.lineno)
    except ValueError as e:
        raise TranslateError(f"not a Python file: {e}", 1)
    name = prefix + re.sub(r"\W", "_", os.path.basename(path))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_file_location(name, path))
    sys.modules[name] = mod
    d = os.path.dirname(os.path.abspath(path))
    if d not in sys.path:
        sys.path.insert(0, d)
    try:
        exec(code, mod.__dict__)
    except Exception as e:  # noqa: BLE001 - any error of the user's file is reported, located
        raise TranslateError(f"importing the {noun} raised {first_line(e)}", model_line(e, path))
    return mod
