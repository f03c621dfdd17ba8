#!/usr/bin/env python3
"""Reference harness of `solar validate`: runs the original model and compares outputs.

    harness.py run --ref MODEL.py --air DIR/air.json --dir DIR [--device cuda|cpu]
                   [-D NAME=V ...] [--runs N] [--warmup N]
    harness.py compare --air DIR/air.json --dir DIR [--tol REL]
    harness.py env

`run` builds the model of MODEL.py at the sizes of air.json (and -D), binds the AIR's tensors to
the model's inputs, parameters and outputs, runs it once, and writes DIR/in_<name>.npy (the
exact inputs it used), DIR/ref_<name>.npy (its outputs) and DIR/ref.json.  On CUDA it also times
it.  `compare` compares DIR/air_<name>.npy, written by the AIR program, with DIR/ref_<name>.npy
and prints a JSON verdict.  `env` prints the interpreter and packages the harness would use.

Exit status: 0 ok (compare: every output within tolerance), 1 compare found a mismatch,
2 usage, binding or environment error, with a one-line reason on stderr.
The conventions, the binding rule and the tolerances: docs/validate.md, "Reference harness".
Runs on Python 3.9+ with numpy 1.24+ and PyTorch 1.13+ (Debian bookworm's python3-torch).
"""
import argparse
import contextlib
import json
import math
import os
import pathlib
import random
import re
import shutil
import statistics
import sys
import time
import types
import warnings

SEED = 0
DEFAULT_PYTHON = "/usr/bin/python3"
L2_FLUSH_BYTES = 512 << 20

# AIR dtype -> (numpy/torch dtype name, kind).  The name is what numpy (with ml_dtypes) and
# torch call the dtype; kind picks the tolerance and the file format.
AIR_DTYPES = {
    "f64": ("float64", "float"),
    "f32": ("float32", "float"),
    "bf16": ("bfloat16", "float"),
    "f16": ("float16", "float"),
    "f8e4m3": ("float8_e4m3fn", "float"),
    "f8e5m2": ("float8_e5m2", "float"),
    "i64": ("int64", "int"),
    "i32": ("int32", "int"),
    "i8": ("int8", "int"),
    "u8": ("uint8", "int"),
    "bool": ("bool", "bool"),
}
# Relative L2 tolerance by AIR dtype (ints and bool compare exactly).
TOLERANCE = {"f64": 1e-9, "f32": 1e-4, "bf16": 2e-2, "f16": 2e-2, "f8e4m3": 1e-1, "f8e5m2": 1e-1}
TF32_TOLERANCE = 1e-3   # f32 outputs of a program with a contraction, when TF32 is in play
# The float64 rule (docs/validate.md, "Comparison"): an output outside tol of the reference
# passes when its error against the reference's float64 run is at most REF_ERROR_MULTIPLE times
# the reference's own error there (counted up to tol), or when the AIR program run in float64
# is within tol of it and the AIR's own error is at most AIR_ERROR_CEILING * tol (for f32:
# 1e-3, the TF32 tolerance, the most an f32 output is allowed to be off already) or at most
# REF_ERROR_MULTIPLE times the reference's own (a model where f32 itself is noise); the AIR's
# own error there may be measured on its accumulator run (its f32 sums held in f64, each
# rounded once at the end of its kernel): the C backend sums one element after another, which
# no GPU kernel and no PyTorch CPU kernel does.
REF_ERROR_MULTIPLE = 4.0
AIR_ERROR_CEILING = 10.0
# A vanishing output (docs/validate.md, "Comparison"): the reference's and the AIR's float64
# runs both below VANISHING times the reference's f32 norm: the exact value is zero (a bias
# before a training-mode batch norm: its gradient), what the f32 runs hold is rounding alone.
VANISHING = 2.0 ** -20
NARROW_FLOATS = ("bf16", "f16", "f8e4m3", "f8e5m2")   # stored as float32 in the .npy files


class HarnessError(Exception):
    """A usage, binding, model or environment error: exit 2 with a one-line reason."""


def warn(msg):
    print(f"harness: warning: {msg}", file=sys.stderr)


def fmt_shape(shape):
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


def one_line(text, limit=400):
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------
# air.json

class AirTensor:
    def __init__(self, d, i):
        try:
            self.name = str(d["name"])
            self.role = str(d["role"])
            self.dtype = str(d["dtype"])
            self.shape = [int(x) for x in d["shape"]]
        except (KeyError, TypeError, ValueError) as e:
            raise HarnessError(f"usage: air.json tensor {i} is malformed ({one_line(e)})")
        self.dist = d.get("dist") if isinstance(d, dict) else None   # rand tensors only
        if self.role not in ("in", "out", "inout", "tmp", "rand"):
            raise HarnessError(f"usage: air.json tensor '{self.name}' has unknown role '{self.role}'")
        if self.dtype not in AIR_DTYPES:
            raise HarnessError(f"usage: air.json tensor '{self.name}' has unknown dtype '{self.dtype}'")
        if self.role == "rand" and self.dist not in ("uniform", "normal"):
            raise HarnessError(f"usage: air.json rand tensor '{self.name}' has no distribution "
                               "(uniform or normal)")

    @property
    def type_name(self):   # numpy / torch name of the dtype
        return AIR_DTYPES[self.dtype][0]

    @property
    def kind(self):
        return AIR_DTYPES[self.dtype][1]

    def describe(self):
        return f"AIR {self.role} '{self.name}' {fmt_shape(self.shape)} {self.dtype}"


class Air:
    def __init__(self, path):
        self.path = pathlib.Path(path)
        try:
            data = json.loads(self.path.read_text())
        except OSError as e:
            raise HarnessError(f"usage: cannot read {path}: {e.strerror}")
        except ValueError as e:
            raise HarnessError(f"usage: {path} is not JSON ({one_line(e)})")
        if not isinstance(data, dict) or not isinstance(data.get("tensors"), list):
            raise HarnessError(f"usage: {path} has no \"tensors\" list")
        self.data = data
        self.program = data.get("program")
        params = data.get("params") or {}
        if not isinstance(params, dict):
            raise HarnessError(f"usage: {path}: \"params\" is not an object")
        self.params = {str(k): int(v) if isinstance(v, float) and v.is_integer() else v
                       for k, v in params.items()}
        self.tensors = [AirTensor(t, i) for i, t in enumerate(data["tensors"])]
        names = [t.name for t in self.tensors]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise HarnessError(f"usage: {path}: tensor '{dup[0]}' declared twice")

    def role(self, *roles):
        return [t for t in self.tensors if t.role in roles]

    def source(self):
        """The AIR text, when air.json carries it or names a readable file; else None."""
        for key in ("source", "text"):
            if isinstance(self.data.get(key), str) and "\n" in self.data[key]:
                return self.data[key]
        for key in ("source", "file", "path", "program"):
            v = self.data.get(key)
            if not isinstance(v, str) or not v:
                continue
            if "\n" in v and key == "program":
                return v
            for cand in (pathlib.Path(v), self.path.parent / v):
                try:
                    if cand.is_file():
                        return cand.read_text(errors="replace")
                except OSError:
                    pass
        return None


def parse_defines(defs):
    out = {}
    for d in defs or []:
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?[0-9]+)\s*", d)
        if not m:
            raise HarnessError(f"usage: -D {d}: expected NAME=INTEGER")
        out[m.group(1)] = int(m.group(2))
    return out


# ---------------------------------------------------------------------------------------------
# Interpreter: SOLAR_PYTHON, else this one if it has the packages, else /usr/bin/python3.

def _same_file(a, b):
    # By path, not by inode: a virtual environment's python is a link to its base interpreter
    # but has its own packages.
    return os.path.abspath(a) == os.path.abspath(b)


def _importable(name):
    try:
        __import__(name)
        return True
    except Exception:   # a broken install counts as missing
        return False


def _reexec(python, script=None):
    env = dict(os.environ)
    env["SOLAR_HARNESS_REEXEC"] = env.get("SOLAR_HARNESS_REEXEC") or sys.executable
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(python, [python, os.path.abspath(script or __file__)] + sys.argv[1:], env)
    except OSError as e:
        raise HarnessError(f"environment: cannot run {python}: {e.strerror}")


def ensure_interpreter(need, script=None):
    """Makes sure this process can import every module in `need`, re-executing the harness
    (or `script`, with the same arguments) under SOLAR_PYTHON or /usr/bin/python3 when it
    cannot.  Never returns on a re-exec."""
    first = os.environ.get("SOLAR_HARNESS_REEXEC")
    want = os.environ.get("SOLAR_PYTHON")
    if want:
        path = shutil.which(want) or want
        if not os.access(path, os.X_OK):
            raise HarnessError(f"environment: SOLAR_PYTHON={want} is not an executable")
        if not first and not _same_file(path, sys.executable):   # (a wrapper execs another)
            _reexec(path, script)
    missing = [m for m in need if not _importable(m)]
    if not missing:
        return
    if not want and not first and os.access(DEFAULT_PYTHON, os.X_OK) \
            and not _same_file(DEFAULT_PYTHON, sys.executable):
        _reexec(DEFAULT_PYTHON, script)
    tried = [first] if first else []
    tried += [sys.executable] if sys.executable not in tried else []
    hint = ("set SOLAR_PYTHON to a Python that has them, or install Debian's python3-torch and "
            "python3-numpy (scripts/deps.sh)")
    if "jax" in missing:
        hint = "set SOLAR_PYTHON to a Python with jax (pip install jax)"
    raise HarnessError(f"environment: no Python with {', '.join(missing)} (tried "
                       f"{' and '.join(tried)}); {hint}")


# ---------------------------------------------------------------------------------------------
# Loading the model

def model_needs(path):
    """The packages MODEL.py needs, read from its imports: torch, jax, or numpy alone."""
    try:
        src = pathlib.Path(path).read_text(errors="replace")
    except OSError as e:
        raise HarnessError(f"usage: cannot read {path}: {e.strerror}")
    need = ["numpy"]
    if re.search(r"^\s*(import|from)\s+torch\b", src, re.M):
        need.append("torch")
    if re.search(r"^\s*(import|from)\s+jax\b", src, re.M):
        need.append("jax")
    return need


def load_module(path):
    import importlib.util
    path = pathlib.Path(path).resolve()
    sys.path.insert(0, str(path.parent))
    name = "solar_ref_" + re.sub(r"\W", "_", path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except HarnessError:
        raise
    except Exception as e:
        raise HarnessError(f"model: loading {path.name} raised {type(e).__name__}: {one_line(e)}")
    return mod


def _what_is(v):
    """A few words for what a module attribute is: 'a module (torch.nn.functional)'."""
    if isinstance(v, types.ModuleType):
        return f"a module ({v.__name__})"
    if isinstance(v, type):
        return f"a class ({v.__name__})"
    if callable(v):
        return f"a function ({getattr(v, '__name__', type(v).__name__)})"
    return f"a {type(v).__name__} ({one_line(repr(v), 40)})"


def is_size_constant(v):
    """Whether a module attribute is a plain size constant that a param may replace: an
    integer (Python's or numpy's), not a bool."""
    import numbers
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def apply_params(mod, air, defines):
    """Sets each param of air.json, then each -D, as a module attribute, where the module's
    attribute of that name is a plain integer size constant (is_size_constant) or is absent.
    A name the module uses for anything else (`F` for torch.nn.functional, a function, a
    class, a float) is left alone, with a warning, as is a builtin the module does not
    redefine (`max`); a -D of such a name, or of a name the module does not define, is an
    error: the original's sizes could not follow it.  Returns (the params applied, the params
    the module did not define, {name: why} for those left alone)."""
    import builtins
    params = dict(air.params)
    params.update(defines)
    names = vars(mod)
    unset = [k for k in params if k not in names]
    skipped = {}
    for k, v in params.items():
        if k in names and not is_size_constant(names[k]):
            skipped[k] = f"the model's '{k}' is {_what_is(names[k])}, not an integer size constant"
        elif k not in names and hasattr(builtins, k):
            skipped[k] = (f"the model does not define '{k}', and setting it would hide Python's "
                          f"builtin {k}()")
    for k, v in defines.items():
        if k in skipped:
            raise HarnessError(f"binding: -D {k}={v} cannot be applied to {mod.__file__}: "
                               f"{skipped[k]}; the original's sizes cannot follow it")
        if k in unset:
            raise HarnessError(f"binding: -D {k}={v}: {mod.__file__} has no module-level "
                               f"constant {k}, so the original cannot be run at that size and "
                               f"the sizes of the AIR and the original would disagree; define "
                               f"{k} there (read by get_inputs()/get_init_inputs()) or leave "
                               f"out -D {k}")
    for k, v in params.items():
        if k in skipped:
            warn(f"AIR param {k} = {v} is not set in the model: {skipped[k]}")
        else:
            setattr(mod, k, v)
    return params, unset, skipped


def call_model_fn(mod, name, default=None):
    fn = getattr(mod, name, None)
    if fn is None:
        if default is not None:
            return default
        raise HarnessError(f"model: {mod.__file__} has no module-level {name}()")
    try:
        return fn()
    except HarnessError:
        raise
    except Exception as e:
        raise HarnessError(f"model: {name}() raised {type(e).__name__}: {one_line(e)}")


def as_list(x, what):
    if isinstance(x, (list, tuple)):
        return list(x)
    raise HarnessError(f"model: {what} returned {type(x).__name__}, not a list")


# ---------------------------------------------------------------------------------------------
# Binding (examples/README.md): in/inout tensors bind to the forward inputs in declaration
# order, the rest to named parameters and buffers; out tensors bind to the outputs in order.

class Side:
    """One bindable value of the model: a forward argument, parameter, buffer or output."""

    def __init__(self, what, value, shape, type_name):
        self.what, self.value, self.shape, self.type_name = what, value, shape, type_name


def check_binding(t, side):
    if side.shape is None:
        raise HarnessError(f"binding: {t.describe()} <- {side.what} is "
                           f"{type(side.value).__name__}, not a tensor")
    problems = []
    if list(side.shape) != list(t.shape):
        problems.append("shape")
    if side.type_name != t.type_name:
        problems.append("dtype")
    if problems:
        verb = "differs" if len(problems) == 1 else "differ"
        raise HarnessError(f"binding: {t.describe()} <- {side.what} {fmt_shape(side.shape)} "
                           f"{side.type_name}: {' and '.join(problems)} {verb}")


def bind(air, inputs, named, outputs=None, named_kind="parameter or buffer"):
    """inputs: list of Side; named: dict name -> Side; outputs: list of Side or None (not yet
    run).  Returns {air name: Side} for every in/inout (and out when outputs is given)."""
    ins = air.role("in", "inout")
    bound = {}
    if len(inputs) > len(ins):
        raise HarnessError(
            f"binding: forward() takes {len(inputs)} inputs (get_inputs()) but the AIR declares "
            f"{len(ins)} in/inout tensors ({', '.join(t.name for t in ins) or 'none'})")
    for t, side in zip(ins, inputs):
        check_binding(t, side)
        bound[t.name] = side
    for t in ins[len(inputs):]:
        side = named.get(t.name)
        if side is None:   # a submodule's parameter: 'fc1.weight' answers to fc1_weight
            side = next((s for n, s in named.items() if n.replace(".", "_") == t.name), None)
        if side is None:
            have = ", ".join(sorted(named)) or "none"
            raise HarnessError(f"binding: {t.describe()} <- nothing: no forward input is left "
                               f"and the model has no {named_kind} '{t.name}' (it has: {have})")
        check_binding(t, side)
        bound[t.name] = side
    if outputs is not None:
        outs = air.role("out")
        if len(outputs) != len(outs):
            raise HarnessError(
                f"binding: the AIR declares {len(outs)} out tensors "
                f"({', '.join(t.name for t in outs) or 'none'}) but forward() returned "
                f"{len(outputs)} outputs")
        for t, side in zip(outs, outputs):
            check_binding(t, side)
            bound[t.name] = side
    return bound


def unbound_names(named, bound):
    used = {id(s) for s in bound.values()}
    return [n for n, s in named.items() if id(s) not in used]


# ---------------------------------------------------------------------------------------------
# Writing the files

def save_npy(path, arr):
    import numpy as np
    arr = np.asarray(arr)   # (np.ascontiguousarray alone makes a rank-0 array shape [1])
    np.save(path, np.ascontiguousarray(arr).reshape(arr.shape), allow_pickle=False)


def file_array(t, arr):
    """The array as written: bf16/f16/f8 as float32 (exact), everything else as is."""
    import numpy as np
    arr = np.asarray(arr)
    if t.dtype in NARROW_FLOATS:
        return arr.astype(np.float32)
    return arr.astype(np.dtype(t.type_name), copy=False)


def write_json(path, obj):
    tmp = pathlib.Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(obj, indent=1, allow_nan=False) + "\n")
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# PyTorch compatibility for old versions (Debian bookworm ships 1.13): added only where missing.

def install_torch_compat(torch, cpu):
    """Adds what examples use from newer PyTorch, and on the CPU a fallback for ops that have
    no float16/bfloat16 kernel there.  Returns (names of the shims, the fallback mode or None,
    the set the fallback records the ops it served in)."""
    served = set()   # what the model actually used
    shims = (_compat_rms_norm, _compat_rmsnorm_module, _compat_sdpa, _compat_attention_module)
    added = [name for name in (shim(torch, served) for shim in shims) if name is not None]
    return added, _low_precision_fallback(torch, served) if cpu else None, served


def _opmath(torch, x):
    """x in the type CUDA computes its float16/bfloat16 ops in (f32)."""
    return x.float() if x.dtype in (torch.float16, torch.bfloat16) else x


def _compat_rms_norm(torch, served):
    F = torch.nn.functional
    if hasattr(F, "rms_norm"):   # PyTorch 2.4; computed in f32 and rounded once
        return None

    def rms_norm(input, normalized_shape, weight=None, eps=None):
        served.add("F.rms_norm")
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        dims = tuple(range(-len(normalized_shape), 0))
        x = _opmath(torch, input)
        if eps is None:
            eps = torch.finfo(x.dtype).eps
        y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
        if weight is not None:
            y = y * weight.to(y.dtype)
        return y.to(input.dtype)
    F.rms_norm = rms_norm
    return "F.rms_norm"


def _compat_rmsnorm_module(torch, served):
    nn = torch.nn
    if hasattr(nn, "RMSNorm"):   # PyTorch 2.4
        return None

    class RMSNorm(nn.Module):
        def __init__(self, normalized_shape, eps=None, elementwise_affine=True,
                     device=None, dtype=None):
            super().__init__()
            if isinstance(normalized_shape, int):
                normalized_shape = (normalized_shape,)
            self.normalized_shape = tuple(normalized_shape)
            self.eps = eps
            self.weight = nn.Parameter(torch.ones(self.normalized_shape, device=device,
                                                  dtype=dtype)) if elementwise_affine else None

        def forward(self, x):
            served.add("nn.RMSNorm")
            return torch.nn.functional.rms_norm(x, self.normalized_shape, self.weight, self.eps)
    nn.RMSNorm = RMSNorm
    return "nn.RMSNorm"


def _compat_sdpa(torch, served):
    F = torch.nn.functional
    if hasattr(F, "scaled_dot_product_attention"):   # PyTorch 2.0; the math path, in f32
        return None

    def sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
             enable_gqa=False):
        served.add("F.scaled_dot_product_attention")
        if dropout_p:
            raise NotImplementedError("the compatibility SDPA has no dropout")
        q, k, v = _opmath(torch, query), _opmath(torch, key), _opmath(torch, value)
        if enable_gqa and k.size(-3) != q.size(-3):
            rep = q.size(-3) // k.size(-3)
            k, v = k.repeat_interleave(rep, -3), v.repeat_interleave(rep, -3)
        scale = q.size(-1) ** -0.5 if scale is None else scale
        s = torch.matmul(q, k.transpose(-2, -1)) * scale
        L, S = q.size(-2), k.size(-2)
        if is_causal:
            keep = torch.ones(L, S, dtype=torch.bool, device=q.device).tril()
            s = s.masked_fill(~keep, float("-inf"))
        if attn_mask is not None:
            if attn_mask.dtype == torch.bool:
                s = s.masked_fill(~attn_mask, float("-inf"))
            else:
                s = s + attn_mask.to(s.dtype)
        return torch.matmul(torch.softmax(s, dim=-1), v).to(query.dtype)
    F.scaled_dot_product_attention = sdpa
    return "F.scaled_dot_product_attention"


def _compat_attention_module(torch, served):
    import enum
    try:
        import torch.nn.attention  # noqa: F401  (PyTorch 2.3)
        return None
    except ImportError:
        pass
    att = types.ModuleType("torch.nn.attention")

    class SDPBackend(enum.IntEnum):
        ERROR = -1
        MATH = 0
        FLASH_ATTENTION = 1
        EFFICIENT_ATTENTION = 2
        CUDNN_ATTENTION = 3

    def sdpa_kernel(backends, set_priority=False):   # one path only: the choice is moot
        served.add("torch.nn.attention")
        return contextlib.nullcontext()
    att.SDPBackend, att.sdpa_kernel = SDPBackend, sdpa_kernel
    sys.modules["torch.nn.attention"] = att
    torch.nn.attention = att
    return "torch.nn.attention"


def _low_precision_fallback(torch, served):
    """The CPU's TorchFunctionMode for float16/bfloat16 (LowPrecisionFallback), or None where
    this PyTorch has no function modes."""
    try:
        from torch.overrides import TorchFunctionMode
    except ImportError:
        return None
    low = (torch.float16, torch.bfloat16)

    def flat(x, acc):
        if isinstance(x, (list, tuple)):
            for y in x:
                flat(y, acc)
        elif isinstance(x, dict):
            for y in x.values():
                flat(y, acc)
        elif isinstance(x, torch.Tensor):
            acc.append(x)
        return acc

    def up(x):
        if isinstance(x, torch.Tensor) and x.dtype in low:
            return x.float()
        if isinstance(x, (list, tuple)):
            return type(x)(up(y) for y in x)
        if isinstance(x, dict):
            return {k: up(v) for k, v in x.items()}
        return x

    def down(x, dt):
        if isinstance(x, torch.Tensor) and x.dtype == torch.float32:
            return x.to(dt)
        if isinstance(x, (list, tuple)):
            return type(x)(down(y, dt) for y in x)
        return x

    # Contractions that cuBLAS/cuDNN accumulate in f32 on the GPU; PyTorch's CPU kernels may
    # accumulate bf16/f16 products in the narrow type (1.13 does), which rounds K times.
    contractions = {"matmul", "__matmul__", "__rmatmul__", "mm", "bmm", "addmm", "baddbmm",
                    "addbmm", "linear", "conv1d", "conv2d", "conv3d", "einsum", "tensordot",
                    "dot", "mv", "addmv", "scaled_dot_product_attention"}

    class LowPrecisionFallback(TorchFunctionMode):
        """On the CPU, an op with no float16/bfloat16 kernel (matmul in f16 on PyTorch 1.13),
        and every contraction on float16/bfloat16 operands, runs in f32 and rounds once to the
        input dtype, as the CUDA kernels (f32 accumulation, f32 opmath) do."""

        def __torch_function__(self, func, types_, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = getattr(func, "__name__", "")
            if name in contractions:
                tensors = flat((args, kwargs), [])
                floats = [t.dtype for t in tensors if t.is_floating_point()]
                if floats and all(d in low for d in floats):
                    served.add(f"cpu-f32-accumulate:{name}")
                    return down(func(*up(args), **up(kwargs)), floats[0])
            try:
                return func(*args, **kwargs)
            except RuntimeError as e:
                if not re.search(r"not implemented for '(Half|BFloat16)'", str(e)):
                    raise
                name = getattr(func, "__name__", str(func))
                tensors = flat((args, kwargs), [])
                floats = [t.dtype for t in tensors if t.is_floating_point()]
                if name.endswith("_") or not floats or any(d not in low for d in floats):
                    raise
                served.add(f"cpu-f32-fallback:{name}")
                return down(func(*up(args), **up(kwargs)), floats[0])

    return LowPrecisionFallback()


# ---------------------------------------------------------------------------------------------
# Taps: the original's intermediate values, for localising a mismatch to one AIR kernel.
# An AIR `tmp` tensor named like a submodule of the model (`fc1`; `blocks.0.mlp` answers to
# blocks_0_mlp, as parameters do) is the output of that submodule's one call; else, named
# like a local variable of forward() (or of the numpy function), its value when forward
# returns.  DIR/tap_<name>.npy holds it, in the file type of the AIR tensor's dtype.

def tap_key(name, air_names):
    """The AIR tensor a module path or local name stands for, or None."""
    if name in air_names:
        return name
    alt = name.replace(".", "_")
    return alt if alt in air_names else None


@contextlib.contextmanager
def capture_locals(code, wanted, got):
    """While active, the locals of the frames running `code` whose names are in `wanted` are
    copied into `got` when the frame returns (the first such frame only)."""
    if code is None or not wanted:
        yield
        return

    def local(frame, event, arg):
        if event == "return" and not got.get("\0done"):
            got["\0done"] = True
            for k, v in frame.f_locals.items():
                if k in wanted:
                    got[k] = v
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is code else None
    old = sys.gettrace()
    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(old)
        got.pop("\0done", None)


def write_taps(air, dirp, found, to_numpy, describe_dtype):
    """found: {AIR tmp name: (source text, value or None, why not)}.  Writes the tap files
    and returns (taps, skipped) for ref.json."""
    taps, skipped = [], []
    for t in air.role("tmp"):
        if t.name not in found:
            continue
        source, val, why = found[t.name]
        shape = list(getattr(val, "shape", [])) if why is None else None
        if why is None and not (hasattr(val, "shape") and hasattr(val, "dtype")):
            why = f"it is {type(val).__name__}, not a tensor"
        elif why is None and [int(d) for d in shape] != t.shape:
            why = f"its shape {fmt_shape(shape)} differs from {t.describe()}"
        if why is not None:
            skipped.append({"tensor": t.name, "source": source, "reason": why})
            continue
        save_npy(dirp / f"tap_{t.name}.npy", file_array(t, to_numpy(val)))
        taps.append({"tensor": t.name, "source": source, "dtype": describe_dtype(val)})
    return taps, skipped


# ---------------------------------------------------------------------------------------------
# The float64 run (docs/validate.md, "Comparison": the float64 rule).  After the reference's own
# run, the model runs once more on the same inputs with every floating value in float64: its
# result is the exact one up to float64's rounding, against which compare measures both the
# reference's own error and the AIR's.  The run writes DIR/ref64_<name>.npy (float64) for every
# float out/inout tensor narrower than f64 that the float64 run computes in float64, and records
# in ref.json's "float64" which it wrote and, for the others, why not (the model raised in
# float64, an op has no float64 kernel, forward casts an output back to a narrower type).

def float64_targets(air):
    """The AIR outputs the float64 run is for: float out/inout tensors narrower than f64."""
    return [t for t in air.role("out", "inout") if t.kind == "float" and t.dtype != "f64"]


def is_floating_array(np, x):
    """Whether x is a numpy-like array of a floating type (ml_dtypes' bf16 and f8 included)."""
    dt = getattr(x, "dtype", None)
    if dt is None:
        return False
    name = str(dt)
    return name.startswith(("float", "bfloat")) or getattr(dt, "kind", "") == "f"


def write_float64(air, dirp, results, failed=None):
    """Writes ref64_<name>.npy for every float64_targets tensor that results (AIR name ->
    numpy array, or a reason string) holds in float64; returns ref.json's "float64" entry.
    failed: the reason the whole run did not happen, for every target."""
    import numpy as np
    written, why_not = [], {}
    for t in float64_targets(air):
        v = failed if failed is not None else results.get(t.name, "not computed by the float64 run")
        if isinstance(v, str):
            why_not[t.name] = v
        elif v.dtype != np.float64:
            why_not[t.name] = (f"the float64 run gives it as {v.dtype} (the model casts it "
                               "inside forward)")
        elif list(v.shape) != t.shape:
            why_not[t.name] = f"the float64 run gives it the shape {fmt_index(v.shape)}"
        else:
            save_npy(dirp / f"ref64_{t.name}.npy", v)
            written.append(t.name)
    return {"written": written, "not_written": why_not}


def torch_float64_copy(torch, model, inputs):
    """(model64, inputs64): a deep copy of model with its floating parameters, buffers and
    tensor attributes cast to float64, and copies of the inputs with the floating tensors
    cast to float64 (the others copied as they are: forward may update them in place).
    Taken before the reference's forward, which may update buffers and inputs.
    bench/pools (pools.exact_output) uses it too."""
    return torch_copy(torch, model, inputs, float64=True)


def torch_copy(torch, model, inputs, float64=False):
    """(model, inputs) deep-copied, the floating tensors cast to float64 when float64."""
    import copy
    cast = (lambda v: v.double()) if float64 else (lambda v: v)
    m2 = copy.deepcopy(model)
    if float64:
        m2 = m2.double()
    for m in m2.modules():
        for k, v in list(vars(m).items()):
            if isinstance(v, torch.Tensor) and v.is_floating_point() and not k.startswith("_"):
                setattr(m, k, cast(v.detach()))
    x2 = [(cast(x.detach().clone()) if x.is_floating_point() else x.detach().clone())
          if isinstance(x, torch.Tensor) else x for x in inputs]
    return m2, x2


def torch_float64_forward(torch, m64, x64, ctx=None):
    """forward() of the float64 copy (torch_float64_copy) under no_grad, as a list of outputs;
    raises HarnessError with the reason when it raises."""
    try:
        with ctx if ctx is not None else contextlib.nullcontext(), torch.no_grad():
            out = m64(*x64)
    except Exception as e:   # noqa: BLE001 - e.g. an op without a float64 kernel
        raise HarnessError(f"forward() in float64 raised {type(e).__name__}: {one_line(e, 200)}")
    return [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]


# The decomposed run (docs/validate.md, "Comparison", rule 2's ceiling): PyTorch's CPU kernels
# of the normalizations accumulate in double (at::acc_type<float, false> is double), where a
# GPU's, and the decompositions torch.compile runs there, compute in f32.  Against float64 the
# CPU reference is then more accurate than any f32 GPU step of the same model, and an f32
# program that is as accurate as that step would fail.  The reference runs once more, on a
# copy in f32, with these operators replaced by PyTorch's own decompositions (torch._decomp:
# each becomes the core ATen ops it is, in the tensor's dtype); its error against the float64
# run is an error that real f32 code of the model has.  DIR/refdec_<name>.npy.
DECOMPOSED_OPS = ("native_batch_norm", "native_batch_norm_backward", "_native_batch_norm_legit",
                  "_native_batch_norm_legit_functional", "_native_batch_norm_legit_no_training",
                  "native_layer_norm", "native_layer_norm_backward", "native_group_norm",
                  "native_group_norm_backward")


def decomposing_mode(torch, served):
    """A dispatch mode running every DECOMPOSED_OPS operator by its torch._decomp
    decomposition (adding its name to `served`), or None where this PyTorch has none."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
        from torch._decomp import decomposition_table
    except ImportError:
        return None
    table = {f: d for f, d in decomposition_table.items()
             if getattr(getattr(f, "overloadpacket", None), "__name__", None) in DECOMPOSED_OPS}

    class Decompose(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            d = table.get(func)
            if d is not None:
                r = d(*args, **kwargs)
                if r is not NotImplemented:
                    served.add(func.overloadpacket.__name__)
                    return r
            return func(*args, **kwargs)
    return Decompose()


def torch_decomposed_results(torch, air, copy32, ctx, rng, n_outs, keys):
    """(AIR name -> numpy value of every float64 target after the f32 copy's forward with the
    normalizations decomposed, the reference's random numbers (rng), {} when forward ran none
    of them; the operators decomposed; None or why there are no results)."""
    served = set()
    mode = decomposing_mode(torch, served)
    if mode is None:
        return {}, [], "this PyTorch has no dispatch modes"
    m, xs = copy32
    with torch.random.fork_rng(devices=[]):
        torch.random.set_rng_state(rng[0])
        try:
            with ctx if ctx is not None else contextlib.nullcontext(), torch.no_grad(), mode:
                out = m(*xs)
        except Exception as e:   # noqa: BLE001 - a decomposition that does not apply
            return {}, sorted(served), (f"forward() with its normalizations decomposed raised "
                                        f"{type(e).__name__}: {one_line(e, 200)}")
    if not served:
        return {}, [], None
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    if len(outs) != n_outs:
        return {}, sorted(served), f"forward() decomposed returned {len(outs)} outputs"
    targets = {t.name for t in float64_targets(air)}
    return ({k: torch_to_numpy(torch, v) for k, v in torch_results(air, outs, xs, m, keys).items()
             if k in targets and isinstance(v, torch.Tensor)}, sorted(served), None)


def write_decomposed(air, dirp, results, served, failed):
    """Writes refdec_<name>.npy of each float64 target the decomposed run computed with the
    target's shape; returns ref.json's "decomposed" entry."""
    written = []
    for t in float64_targets(air):
        v = results.get(t.name)
        if v is not None and list(v.shape) == t.shape:
            save_npy(dirp / f"refdec_{t.name}.npy", v)
            written.append(t.name)
    return {"ops": served, "written": written, "failed": failed}


# ---------------------------------------------------------------------------------------------
# run: PyTorch

TORCH_DTYPE_NAME = lambda dt: str(dt).replace("torch.", "")   # noqa: E731


def draw_constant_parameters(air, bound, named, constant, draw):
    """Every floating-point parameter or buffer (or get_params() entry) bound to an AIR input
    whose elements are all equal (nn.LayerNorm's and nn.BatchNorm's weight 1, bias 0, running
    mean 0 and variance 1 as constructed) is drawn at random before the model runs: with ones
    and zeros an AIR that leaves out the gain or swaps the mean and the bias computes the same
    numbers and would pass.  constant(x) is the value c all of x's elements have, or None;
    draw(name, side, c) replaces it (c * U(0.5, 1.5), 0 by U(-0.5, 0.5), from a generator of
    its own, so the inputs drawn before are unchanged).  Says which on stderr."""
    name_of = {id(s): n for n, s in named.items()}
    drawn = []
    for t in air.role("in", "inout"):
        side = bound.get(t.name)
        if side is None or id(side) not in name_of:
            continue
        c = constant(side.value)
        if c is None or c != c or abs(c) == float("inf"):
            continue
        draw(name_of[id(side)], side, c)
        drawn.append(f"{side.what} (all {c:g})")
    if drawn:
        warn(f"{', '.join(drawn)} drawn at random for the check: an AIR that ignored "
             f"{'it' if len(drawn) == 1 else 'them'} would pass on equal values")


def draw_torch_parameters(torch, air, bound, named):
    """draw_constant_parameters for PyTorch: the tensors are changed in place."""
    gen = torch.Generator().manual_seed(SEED + 1)

    def constant(x):
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() == 0:
            return None
        c = x.detach().flatten()[0].item()
        return c if bool((x == c).all()) else None

    def draw(name, side, c):
        x = side.value
        u = torch.rand(tuple(x.shape), generator=gen, dtype=torch.float32)
        with torch.no_grad():
            x.copy_((u - 0.5 if c == 0 else c * (0.5 + u)).to(x.dtype))
    draw_constant_parameters(air, bound, named, constant, draw)


def draw_array_parameters(np, air, bound, named, weights, jnp):
    """draw_constant_parameters for numpy or JAX: the get_params() entry is replaced by a new
    array of its type (JAX arrays are immutable), in weights and in its binding."""
    rng = np.random.default_rng(SEED + 1)

    def constant(x):
        if not (hasattr(x, "shape") and hasattr(x, "dtype")):
            return None
        a = np.asarray(x)
        if a.size == 0 or a.dtype.kind != "f" and "bfloat16" not in str(a.dtype):
            return None
        a = a.astype(np.float64)
        c = float(a.flat[0])
        return c if bool((a == c).all()) else None

    def draw(name, side, c):
        x = side.value
        u = rng.random(tuple(int(d) for d in x.shape), dtype=np.float32)
        v = u - np.float32(0.5) if c == 0 else np.float32(c) * (np.float32(0.5) + u)
        new = jnp.asarray(v, dtype=x.dtype) if jnp is not None and not isinstance(x, np.ndarray) \
            else np.asarray(v).astype(np.asarray(x).dtype)
        weights[name] = new
        side.value = new
    draw_constant_parameters(air, bound, named, constant, draw)


def torch_side(torch, what, x):
    if isinstance(x, torch.Tensor):
        return Side(what, x, list(x.shape), TORCH_DTYPE_NAME(x.dtype))
    return Side(what, x, None, None)


def torch_to_numpy(torch, x):
    x = x.detach().to("cpu")
    if x.dtype in (torch.float16, torch.bfloat16) or "float8" in str(x.dtype):
        x = x.float()
    return x.numpy()


# ---------------------------------------------------------------------------------------------
# Random numbers in forward (docs/validate.md, "Random numbers").  Every AIR `rand` tensor gets
# a fixed draw, written as DIR/in_<name>.npy, which the AIR program reads like an input.  During
# the reference forward a dispatch mode serves the k-th random ATen call (dropout's bernoulli_
# or native_dropout, rand, randn, randint, normal_, ...) from the k-th rand tensor's draw, in
# declaration order (solar translate declares them in the order forward draws them), and
# computes what the call computes from those numbers.  So both sides use the same numbers and
# everything made from them is checked exactly; the distribution itself is not checked.

RAND_SEED = 20261202


class FixedDraws:
    # ATen random operators by the distribution of the draw they take, and those the harness
    # cannot fix (refused).  (Not the tag nondeterministic_seeded: attention kernels carry it
    # for their dropout_p, also at 0.)
    UNIFORM = ("rand", "rand_like", "randint", "randint_like", "bernoulli", "bernoulli_",
               "native_dropout", "uniform_")
    NORMAL = ("randn", "randn_like", "normal", "normal_")
    UNFIXED = ("randperm", "multinomial", "exponential_", "geometric_", "cauchy_",
               "log_normal_", "random_", "poisson", "binomial", "_standard_gamma",
               "_sample_dirichlet", "rrelu_with_noise", "_fused_dropout")

    def __init__(self, torch, air, dirp, device):
        import numpy as np
        self.torch, self.device = torch, device
        self.rand = air.role("rand")
        self.served, self.values = [], {}
        rng = np.random.default_rng(RAND_SEED)
        for t in self.rand:
            if t.dist == "normal":
                a = rng.standard_normal(t.shape).astype(np.float32)
            else:   # multiples of 2^-24 in [0, 1), as PyTorch's f32 uniform draws
                a = (rng.integers(0, 1 << 24, size=t.shape) / float(1 << 24)).astype(np.float32)
            # rounded to the tensor's dtype, as the AIR program's load rounds it
            v = torch.from_numpy(a).to(getattr(torch, t.type_name)).to(torch.float32)
            self.values[t.name] = v
            save_npy(dirp / f"in_{t.name}.npy", file_array(t, v.numpy()))

    def take(self, func, dist, like):
        """The next rand tensor's draw, float32, shaped like `like`, on its device."""
        k = len(self.served)
        what = f"random draw {k} of forward() ({func}, {like.numel()} elements)"
        if k >= len(self.rand):
            raise HarnessError(f"binding: {what} <- nothing: the AIR declares {len(self.rand)} "
                               "rand tensors, forward() draws random numbers more often")
        t = self.rand[k]
        if t.dist != dist or math.prod(t.shape) != like.numel():
            raise HarnessError(f"binding: {what} <- {t.describe()} {t.dist}: it takes "
                               f"{dist} draws of {like.numel()} elements")
        self.served.append({"call": str(func), "rand": t.name, "elements": like.numel()})
        return self.values[t.name].to(like.device).reshape(like.shape)

    def mode(self):
        """The dispatch mode serving the draws; none (every operator as it is, as before rand
        tensors existed) when the AIR has no rand tensor."""
        torch = self.torch
        if not self.rand:
            return contextlib.nullcontext()
        try:
            from torch.utils._python_dispatch import TorchDispatchMode
        except ImportError:
            raise HarnessError(f"environment: PyTorch {torch.__version__} has no "
                               "TorchDispatchMode: rand tensors cannot be fixed")
        serve = self.serve

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types_, args=(), kwargs=None):
                kwargs = kwargs or {}
                name = func.overloadpacket.__name__
                if name in FixedDraws.UNIFORM or name in FixedDraws.NORMAL:
                    return serve(func, name, list(args), kwargs)
                if name in FixedDraws.UNFIXED:
                    raise HarnessError(f"binding: forward() draws random numbers with {func}, "
                                       "which the harness cannot fix (docs/validate.md)")
                return func(*args, **kwargs)
        return Mode()

    def serve(self, func, name, a, kw):
        """What func computes from the next draw (the AIR's formulas, in its real type: f64
        for f64 tensors, else f32)."""
        torch = self.torch

        def real(x):
            return torch.float64 if x.dtype == torch.float64 else torch.float32

        def scalar(v, like):
            return torch.tensor(v, dtype=real(like), device=like.device)
        if name == "native_dropout":
            x, p, train = a[0], a[1], a[2] if len(a) > 2 else kw.get("train", True)
            if train is False or p == 0 or p >= 1:
                return func(*a, **kw)      # no draw (the AIR has none either)
            d = self.take(func, "uniform", x)
            mask = d.to(real(x)) < scalar(1 - p, x)
            out = torch.where(mask, x.to(real(x)) * scalar(1 / (1 - p), x), scalar(0.0, x))
            return out.to(x.dtype), mask
        out = func(*a, **kw)               # the real call: shape, dtype and device of the result
        dest = out
        if name in ("bernoulli", "bernoulli_"):
            d = self.take(func, "uniform", out)
            p = a[1] if len(a) > 1 else kw.get("p", a[0] if name == "bernoulli" else 0.5)
            p = p.to(real(out)) if isinstance(p, torch.Tensor) else scalar(p, out)
            val = d.to(real(out)) < p
        elif name in ("randint", "randint_like"):
            d = self.take(func, "uniform", out)
            ints = [x for x in a if isinstance(x, int)]
            lo, hi = (0, ints[0]) if len(ints) < 2 else (ints[0], ints[1])
            val = lo + torch.floor(d.to(torch.float64) * (hi - lo))
        elif name == "uniform_":
            d = self.take(func, "uniform", out)
            lo = a[1] if len(a) > 1 else kw.get("from", 0.0)
            hi = a[2] if len(a) > 2 else kw.get("to", 1.0)
            val = scalar(lo, out) + scalar(hi - lo, out) * d.to(real(out))
        elif name in ("normal", "normal_"):
            d = self.take(func, "normal", out)
            nums = [x for x in (a[1:] if name == "normal_" else a) if isinstance(x, (int, float))]
            mean = kw.get("mean", nums[0] if nums else 0.0)
            std = kw.get("std", nums[1] if len(nums) > 1 else 1.0)
            val = scalar(mean, out) + scalar(std, out) * d.to(real(out))
        else:                              # rand, rand_like, randn, randn_like
            val = self.take(func, "normal" if name in FixedDraws.NORMAL else "uniform", out)
        dest.copy_(val.to(out.dtype))
        return out

    def check_all_served(self):
        if len(self.served) < len(self.rand):
            t = self.rand[len(self.served)]
            raise HarnessError(f"binding: {t.describe()} <- nothing: forward() drew random "
                               f"numbers {len(self.served)} times, the AIR declares "
                               f"{len(self.rand)} rand tensors")

    def record(self):
        if not self.rand:
            return {}
        return {"random": {"served": self.served,
                           "checked": "everything computed from the draws, with the same draws "
                                      "on both sides",
                           "not_checked": "the distribution of the draws (they are fixed)"}}


def pick_torch_device(torch, want):
    if want is None:   # auto: the GPU when there is one
        want = "cuda" if torch.cuda.is_available() else "cpu"
    if want == "cuda":
        if not torch.cuda.is_available():
            raise HarnessError(f"environment: --device cuda, but PyTorch {torch.__version__} "
                               f"({sys.executable}) sees no CUDA device")
        return torch.device("cuda")
    return torch.device("cpu")


def run_torch(args, air, mod, defines):
    import torch
    device = pick_torch_device(torch, args.device)
    cpu = device.type == "cpu"
    compat, mode, served = install_torch_compat(torch, cpu)
    # The math flags are PyTorch's defaults, set before the model file was loaded
    # (default_math_flags()), then whatever the file set: they are recorded.
    params, unset, skipped = apply_params(mod, air, defines)
    ctx = mode if mode is not None else contextlib.nullcontext()
    model, inputs = torch_model_and_inputs(torch, args, mod, ctx)
    # A Python number among the forward arguments (forward(A, s)) binds to no AIR tensor: a
    # translation holds its value as a literal (torch.export specializes it).
    in_sides = [torch_side(torch, f"forward argument {i}", x) for i, x in enumerate(inputs)
                if not isinstance(x, (bool, int, float))]
    named = torch_named_tensors(torch, model)
    bound = bind(air, in_sides, named)
    for n in unbound_names(named, bound):
        warn(f"binding: {named[n].what} of the model binds to no AIR tensor")
    draw_torch_parameters(torch, air, bound, named)
    dirp = pathlib.Path(args.dir)
    save_inputs(air, bound, dirp, lambda v: torch_to_numpy(torch, v))

    # Move to the device; parameters and buffers are looked up again by name afterwards.
    model = model.to(device)   # in the mode it was constructed in (nn.Module: training)
    dev_inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    copy64 = failed64 = copy32 = None
    if float64_targets(air):   # copied before the forward, which may update buffers and inputs
        try:
            copy64 = torch_float64_copy(torch, model, dev_inputs)
            if cpu:   # the decomposed run: only the CPU's kernels accumulate in double
                copy32 = torch_copy(torch, model, dev_inputs)
        except Exception as e:   # noqa: BLE001 - a model that cannot be copied or cast
            failed64 = f"the model cannot be copied in float64: {type(e).__name__}: {one_line(e, 200)}"
    rng = (torch.random.get_rng_state(), None if cpu else torch.cuda.get_rng_state(device))
    outs, found, ops, draws = torch_forward(torch, air, dirp, model, dev_inputs, ctx, device)
    out_sides = [torch_side(torch, f"forward output {i}", x) for i, x in enumerate(outs)]
    bind(air, in_sides, named, outputs=out_sides)
    keys = {t.name: next((n for n, s in named.items() if s is bound[t.name]), None)
            for t in air.role("inout")}
    for name, val in torch_results(air, outs, dev_inputs, model, keys).items():
        t = next(t for t in air.tensors if t.name == name)
        save_npy(dirp / f"ref_{t.name}.npy", file_array(t, torch_to_numpy(torch, val)))
    taps, taps_skipped = write_taps(air, dirp, found, lambda v: torch_to_numpy(torch, v),
                                    lambda v: TORCH_DTYPE_NAME(v.dtype))
    results64 = {}
    if copy64 is not None:
        results64, failed64 = torch_float64_results(torch, air, copy64, ctx, rng, device,
                                                    len(outs), keys)
        copy64 = None   # (GPU memory, before the timed runs)
    float64 = write_float64(air, dirp, results64, failed64)
    decomposed = None
    if copy32 is not None and float64["written"]:
        decomposed = write_decomposed(air, dirp, *torch_decomposed_results(
            torch, air, copy32, ctx, rng, len(outs), keys))
    copy32 = None

    timing = {"time_s": None, "min_s": None, "runs": 0}
    if not cpu and args.runs > 0:
        timing = time_torch_cuda(torch, lambda: model(*dev_inputs), args.warmup, args.runs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model_flags = {"matmul_allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
                       "cudnn_allow_tf32": bool(torch.backends.cudnn.allow_tf32)}
        flags = effective_tf32(model_flags, cpu, ops)
    return dict(timing, device="cpu" if cpu else torch.cuda.get_device_name(device),
                model_flags=model_flags,
                torch=torch.__version__, flags=flags, convention="pytorch", params=params,
                params_not_in_model=unset, params_not_set=skipped, compat=sorted(served),
                compat_installed=compat, taps=taps, taps_skipped=taps_skipped, float64=float64,
                decomposed=decomposed, **draws.record())


def torch_model_and_inputs(torch, args, mod, ctx):
    """(Model(*get_init_inputs()), get_inputs()), made under ctx after the seeds are set."""
    import numpy as np
    Model = getattr(mod, "Model", None)
    if Model is None:
        raise HarnessError(f"model: {args.ref} has no class Model")
    with ctx:
        # As examples/measure.py and bench/soundness.py: one seed, the model, then the inputs.
        torch.manual_seed(SEED)
        np.random.seed(SEED)
        random.seed(SEED)
        init = as_list(call_model_fn(mod, "get_init_inputs", default=[]), "get_init_inputs()")
        try:
            model = Model(*init)
        except Exception as e:
            raise HarnessError(f"model: Model(*get_init_inputs()) raised {type(e).__name__}: "
                               f"{one_line(e)}")
        inputs = as_list(call_model_fn(mod, "get_inputs"), "get_inputs()")
    return model, inputs


def torch_named_tensors(torch, model):
    """name -> Side of every parameter, buffer and tensor attribute of the model."""
    named = {}
    for n, p in model.named_parameters():
        named[n] = torch_side(torch, f"parameter '{n}'", p)
    for n, b in model.named_buffers():
        named.setdefault(n, torch_side(torch, f"buffer '{n}'", b))
    # Plain tensor attributes (self.hidden = torch.randn(...) in __init__): solar translate
    # makes them buffers of the same path (torch.export would refuse or lift them).
    for path, m in model.named_modules():
        for k, v in vars(m).items():
            if isinstance(v, torch.Tensor) and not k.startswith("__"):
                n = f"{path}.{k}" if path else k
                named.setdefault(n, torch_side(torch, f"tensor attribute '{n}'", v))
    return named


def save_inputs(air, bound, dirp, to_numpy):
    """DIR/in_NAME.npy of every in and inout tensor, from the value bound to it."""
    import numpy as np
    for t in air.role("in", "inout"):
        arr = to_numpy(bound[t.name].value)
        if arr.size and t.kind != "bool" and not np.any(arr):
            warn(f"{t.describe()} is all zeros: random inputs find more bugs")
        save_npy(dirp / f"in_{t.name}.npy", file_array(t, arr))


def torch_forward(torch, air, dirp, model, dev_inputs, ctx, device):
    """The compared forward(), with its random draws fixed (FixedDraws) and its taps taken:
    (its outputs as a list, tap name -> (what, value, why none), the names of the ATen
    operators it ran (None on the CPU), the draws)."""
    cpu = device.type == "cpu"
    tmp_names = {t.name for t in air.role("tmp")}
    found = {}
    draws = FixedDraws(torch, air, dirp, device)
    hooks = submodule_taps(torch, model, tmp_names, found)
    local_vals = {}
    ops = None if cpu else set()   # the ATen operators of the compared forward (GPU: the TF32 rule)
    fwd_code = getattr(getattr(type(model), "forward", None), "__code__", None)
    try:
        with ctx, torch.no_grad(), capture_locals(fwd_code, tmp_names - set(found), local_vals):
            try:
                with draws.mode(), op_recorder(torch, ops):
                    out = model(*dev_inputs)
                if not cpu:
                    torch.cuda.synchronize()
            except HarnessError:
                raise
            except Exception as e:
                raise HarnessError(f"model: forward() raised {type(e).__name__}: {one_line(e)}")
    finally:
        for h in hooks:
            h.remove()
    draws.check_all_served()
    found = {k: v[:3] for k, v in found.items()}
    for k, v in local_vals.items():
        v = v.detach().clone() if isinstance(v, torch.Tensor) else v
        found[k] = (f"forward()'s local variable '{k}'", v, None)
    if out is None:
        outs = []
    elif isinstance(out, (list, tuple)):
        outs = list(out)
    else:
        outs = [out]
    return outs, found, ops, draws


def submodule_taps(torch, model, tmp_names, found):
    """Forward hooks recording in found[key] (what, value, why none, calls) the output of
    every submodule named like an AIR tmp tensor (tap_key), its value only when it runs once;
    returns the hooks."""
    def hook_for(path, key):
        def hook(module, args_, result):
            calls = found.get(key, (None, None, None, 0))[3] + 1
            val = result.detach().clone() if isinstance(result, torch.Tensor) else result
            why = None if calls == 1 else f"submodule '{path}' runs {calls} times in forward()"
            found[key] = (f"the output of submodule '{path}'", val if calls == 1 else None,
                          why, calls)
        return hook
    hooks = []
    for path, m in model.named_modules():
        key = tap_key(path, tmp_names) if path else None
        if key is not None and key not in found:
            hooks.append(m.register_forward_hook(hook_for(path, key)))
            found[key] = (f"the output of submodule '{path}'", None,
                          f"submodule '{path}' does not run in forward()", 0)
    return hooks


def torch_float64_results(torch, air, copy64, ctx, rng, device, n_outs, keys):
    """(AIR name -> numpy value of every out and inout tensor after the float64 copy's
    forward, with the reference's random numbers (rng); None, or why there are none)."""
    cpu = device.type == "cpu"
    with torch.random.fork_rng(devices=[] if cpu else [device]):
        torch.random.set_rng_state(rng[0])   # the reference's random numbers, if it draws any
        if not cpu:
            torch.cuda.set_rng_state(rng[1], device)
        try:
            outs64 = torch_float64_forward(torch, *copy64, ctx)
            if len(outs64) != n_outs:
                raise HarnessError(f"forward() in float64 returned {len(outs64)} outputs")
            return {k: torch_to_numpy(torch, v) if isinstance(v, torch.Tensor) else
                    "not a tensor in the float64 run" for k, v in
                    torch_results(air, outs64, copy64[1], copy64[0], keys).items()}, None
        except HarnessError as e:
            return {}, str(e)


# Operators cuDNN may run in TF32 when torch.backends.cudnn.allow_tf32 is on (its default):
# convolutions and recurrent layers (ATen names containing these); cuDNN's batch norm and the
# rest have no TF32 path.
CUDNN_TF32_OPS = ("conv", "cudnn", "rnn", "lstm", "gru")


def op_recorder(torch, names):
    """A dispatch mode adding the name of every ATen operator run under it to the set `names`
    (none when names is None, or where this PyTorch has no dispatch modes: names becomes
    unknown, and effective_tf32 assumes the worst)."""
    if names is None:
        return contextlib.nullcontext()
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        names.add("?")
        return contextlib.nullcontext()

    class Record(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            names.add(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))
    return Record()


def effective_tf32(model_flags, cpu, ops):
    """The TF32 flags that can have changed the reference's numbers (ref.json `flags`, which
    loosen f32 tolerances): none on the CPU; the matmul flag as set; cuDNN's only when forward
    ran an operator cuDNN may run in TF32 (ops: the operator names, None or '?' when unknown).
    Before, cuDNN's default-on flag loosened every GPU validation with a contraction to 1e-3,
    so a 24-layer linear model with a wrong eps (rel_l2 7.9e-4) passed on the GPU."""
    cudnn = ops is None or "?" in ops or any(k in n for n in ops for k in CUDNN_TF32_OPS)
    return {"matmul_allow_tf32": bool(model_flags["matmul_allow_tf32"]) and not cpu,
            "cudnn_allow_tf32": bool(model_flags["cudnn_allow_tf32"]) and not cpu and cudnn}


def torch_results(air, outs, inputs, model, keys):
    """AIR name -> the value of every out and inout tensor after a forward: outs are its
    outputs, inputs its arguments (an inout tensor bound to one reads it back), model the
    module (an inout bound to a parameter or buffer reads it back by its name in keys)."""
    after = dict(model.named_parameters())
    after.update(dict(model.named_buffers()))
    out_names = [o.name for o in air.role("out")]
    in_names = [o.name for o in air.role("in", "inout")]
    tensor_inputs = [x for x in inputs if not isinstance(x, (bool, int, float))]
    vals = {}
    for t in air.role("out", "inout"):
        if t.role == "out":
            vals[t.name] = outs[out_names.index(t.name)]
        else:
            i = in_names.index(t.name)
            vals[t.name] = tensor_inputs[i] if i < len(tensor_inputs) else after[keys[t.name]]
    return vals


def time_torch_cuda(torch, fn, warmup, runs, flush_l2=True):
    """Median and minimum of `runs` CUDA-event timings after `warmup` runs, the L2 flushed
    before each timed run (flush_l2=False: back to back, each run finds what the last left)."""
    flush = torch.empty(L2_FLUSH_BYTES if flush_l2 else 0, dtype=torch.uint8, device="cuda")
    times = []
    with torch.no_grad():
        for _ in range(warmup):
            fn()
        torch.cuda.synchronize()
        for _ in range(runs):
            if flush_l2:
                flush.zero_()   # overwrite 512 MiB: the L2 holds none of the inputs
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1e-3)
    del flush
    return {"time_s": statistics.median(times), "min_s": min(times), "runs": runs}


# ---------------------------------------------------------------------------------------------
# run: JAX or numpy (a module-level function)

def run_function(args, air, mod, defines, use_jax):
    import numpy as np
    jax = None
    if use_jax:
        import jax
    fn, fname = module_function(args, mod)
    if not use_jax and args.device == "cuda":
        raise HarnessError("usage: a numpy model runs on the CPU only; use --device cpu")
    if air.role("rand"):
        raise HarnessError("usage: AIR rand tensors are fixed for PyTorch models only "
                           "(docs/validate.md, \"Random numbers\")")
    params, unset, skipped = apply_params(mod, air, defines)
    inputs, weights = function_inputs(mod)
    in_sides = [array_side(np, f"{fname}() argument {i}", x) for i, x in enumerate(inputs)]
    named = {str(n): array_side(np, f"get_params() entry '{n}'", v) for n, v in weights.items()}
    bound = bind(air, in_sides, named, named_kind="get_params() entry")
    for n in unbound_names(named, bound):
        warn(f"binding: get_params() entry '{n}' binds to no AIR tensor")
    draw_array_parameters(np, air, bound, named, weights, jax.numpy if jax is not None else None)
    dirp = pathlib.Path(args.dir)
    save_inputs(air, bound, dirp, np.array)   # a copy: numpy models may update inout in place

    def call():
        r = fn(*inputs, **weights)
        if jax is not None:
            r = jax.block_until_ready(r)
        return r
    failed64 = None
    if jax is not None:
        failed64 = ("a JAX model is not run in float64 (JAX computes in float64 only with "
                    "jax_enable_x64 set before it starts)")
    else:   # copies, taken before the call, which may update inout arrays in place
        inputs64, weights64 = float64_copies(np, inputs, weights)
    if jax is not None:
        dev = jax.devices()[0]
        inputs = [jax.device_put(x, dev) for x in inputs]
        weights = {k: jax.device_put(v, dev) for k, v in weights.items()}
    local_vals = {}
    try:
        with capture_locals(None if jax else getattr(fn, "__code__", None),
                            {t.name for t in air.role("tmp")}, local_vals):
            out = call()
    except Exception as e:
        raise HarnessError(f"model: {fname}() raised {type(e).__name__}: {one_line(e)}")
    found = {k: (f"{fname}()'s local variable '{k}'", np.array(v), None)
             for k, v in local_vals.items()}
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    out_sides = [array_side(np, f"{fname}() output {i}", x) for i, x in enumerate(outs)]
    bind(air, in_sides, named, outputs=out_sides)
    save_function_results(np, air, dirp, out_sides, inputs, weights, named, bound)
    taps, taps_skipped = write_taps(air, dirp, found, np.asarray, lambda v: np.dtype(v.dtype).name)
    results64 = {}
    if failed64 is None and float64_targets(air):
        try:
            results64 = numpy_float64_results(np, air, fn, fname, inputs64, weights64, named,
                                              bound)
        except HarnessError as e:
            failed64 = str(e)
    float64 = write_float64(air, dirp, results64, failed64)

    on_gpu = jax is not None and jax.devices()[0].platform == "gpu"
    timing = {"time_s": None, "min_s": None, "runs": 0}
    if on_gpu and args.runs > 0:
        timing = time_jax_gpu(jax, call, args.warmup, args.runs)
    tf32 = False
    if on_gpu:   # JAX's default f32 matmul precision on GPUs is TF32
        prec = str(jax.config.jax_default_matmul_precision or "default").lower()
        tf32 = prec not in ("highest", "float32")
    info = dict(timing, torch=None, convention="jax" if jax else "numpy", params=params,
                params_not_in_model=unset, params_not_set=skipped, taps=taps,
                taps_skipped=taps_skipped, float64=float64, flags={"matmul_allow_tf32": tf32,
                                                  "cudnn_allow_tf32": tf32}, compat=[])
    if jax is not None:
        info["jax"] = jax.__version__
        info["device"] = jax.devices()[0].device_kind if on_gpu else "cpu"
    else:
        info["device"] = "cpu"
    return info


def module_function(args, mod):
    """(the model's module-level function, its name): forward, model or fn."""
    fn = getattr(mod, "forward", None)
    fname = "forward"
    for alt in ("model", "fn"):   # fn: the convention of `solar translate --jax`
        if not callable(fn):
            fn, fname = getattr(mod, alt, None), alt
    if not callable(fn):
        raise HarnessError(f"model: {args.ref} has neither class Model nor a module-level "
                           "function forward, model or fn")
    return fn, fname


def function_inputs(mod):
    """(get_inputs(), a copy of get_params()), made after the seeds are set."""
    import numpy as np
    np.random.seed(SEED)
    random.seed(SEED)
    inputs = as_list(call_model_fn(mod, "get_inputs"), "get_inputs()")
    weights = call_model_fn(mod, "get_params", default={})
    if not isinstance(weights, dict):
        raise HarnessError(f"model: get_params() returned {type(weights).__name__}, not a dict")
    return inputs, dict(weights)   # entries drawn at random replace the copy's, not the model's


def array_side(np, what, x):
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return Side(what, x, [int(d) for d in x.shape], np.dtype(x.dtype).name)
    return Side(what, x, None, None)


def save_function_results(np, air, dirp, out_sides, inputs, weights, named, bound):
    """DIR/ref_NAME.npy of every out tensor (from the function's outputs) and inout tensor
    (the argument or get_params() entry bound to it, as the call left it)."""
    for t in air.role("out", "inout"):
        if t.role == "out":
            val = out_sides[[o.name for o in air.role("out")].index(t.name)].value
        else:
            i = [o.name for o in air.role("in", "inout")].index(t.name)
            val = inputs[i] if i < len(inputs) else weights[
                next(n for n, s in named.items() if s is bound[t.name])]
        save_npy(dirp / f"ref_{t.name}.npy", file_array(t, np.asarray(val)))


def float64_copies(np, inputs, weights):
    """Copies of the arguments and get_params() entries, the floating arrays in float64."""
    inputs64 = [np.array(x, dtype=np.float64) if is_floating_array(np, x) else
                np.array(x) if hasattr(x, "dtype") else x for x in inputs]
    weights64 = {k: np.array(v, dtype=np.float64) if is_floating_array(np, v) else v
                 for k, v in weights.items()}
    return inputs64, weights64


def time_jax_gpu(jax, call, warmup, runs):
    """Median and minimum of `runs` wall-clock timings of call() after `warmup` runs, the L2
    flushed before each timed run."""
    import jax.numpy as jnp
    flush = jax.jit(lambda b: b + 1)
    buf = jnp.zeros(L2_FLUSH_BYTES, dtype=jnp.uint8)
    for _ in range(warmup):
        call()
    times = []
    for _ in range(runs):
        buf = flush(buf).block_until_ready()
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return {"time_s": statistics.median(times), "min_s": min(times), "runs": runs}


def numpy_float64_results(np, air, fn, fname, inputs64, weights64, named, bound):
    """The float64 run of a numpy model: fn on the float64 copies of its arguments and
    get_params() entries; AIR name -> the value of every out and inout tensor afterwards."""
    try:
        out = fn(*inputs64, **weights64)
    except Exception as e:   # noqa: BLE001
        raise HarnessError(f"{fname}() in float64 raised {type(e).__name__}: {one_line(e, 200)}")
    outs = [] if out is None else list(out) if isinstance(out, (list, tuple)) else [out]
    out_names = [o.name for o in air.role("out")]
    if len(outs) != len(out_names):
        raise HarnessError(f"{fname}() in float64 returned {len(outs)} outputs")
    in_names = [o.name for o in air.role("in", "inout")]
    vals = {}
    for t in air.role("out", "inout"):
        if t.role == "out":
            vals[t.name] = np.asarray(outs[out_names.index(t.name)])
        else:
            i = in_names.index(t.name)
            vals[t.name] = np.asarray(inputs64[i] if i < len(inputs64) else weights64[
                next(n for n, s in named.items() if s is bound[t.name])])
    return vals


def default_math_flags():
    """PyTorch's default math (matmul TF32 off, cuDNN TF32 on), set explicitly before the model
    file is loaded, so that a module-level `torch.backends.cuda.matmul.allow_tf32 = True` in it
    holds, as it does when the file runs alone and when solar translate reads the flags.
    (Newer PyTorch warns that these flags give way to fp32_precision; they still hold.)"""
    import torch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = True


def cmd_run(args):
    defines = parse_defines(args.define)
    if args.runs < 0 or args.warmup < 0:
        raise HarnessError("usage: --runs and --warmup take a count >= 0")
    if not pathlib.Path(args.ref).is_file():
        raise HarnessError(f"usage: {args.ref}: no such file")
    need = model_needs(args.ref)
    if "jax" in need:   # before jax is first imported: it picks its platform then
        if args.device:
            os.environ["JAX_PLATFORMS"] = args.device
    ensure_interpreter(need)
    if "jax" in need and args.device == "cuda":
        import jax
        try:
            jax.devices("gpu")
        except Exception:
            raise HarnessError(f"environment: --device cuda, but JAX {jax.__version__} "
                               f"({sys.executable}) sees no GPU")
    air = Air(args.air)
    dirp = pathlib.Path(args.dir)
    try:
        dirp.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise HarnessError(f"usage: cannot create {args.dir}: {e.strerror}")
    ref_json = dirp / "ref.json"
    if ref_json.exists():
        ref_json.unlink()
    for stale in (*dirp.glob("tap_*.npy"), *dirp.glob("ref64_*.npy"),
                  *dirp.glob("air64_*.npy"), *dirp.glob("airacc_*.npy"),
                  *dirp.glob("refdec_*.npy")):
        stale.unlink()   # (a kept DIR: only this run's taps and float64 runs count)
    try:
        if "torch" in need:
            default_math_flags()
        mod = load_module(args.ref)
        if "torch" in need and hasattr(mod, "Model"):
            info = run_torch(args, air, mod, defines)
        else:
            info = run_function(args, air, mod, defines, use_jax="jax" in need)
    except HarnessError as e:
        write_json(ref_json, {"ok": False, "error": str(e)})
        raise
    timed = info.get("runs", 0) > 0
    result = {"ok": True}
    for key in ("time_s", "min_s", "device", "torch", "flags", "runs"):
        result[key] = info.pop(key)
    result.update(warmup=args.warmup if timed else 0, seed=SEED, python=sys.executable,
                  model=str(args.ref))
    result.update(info)
    write_json(ref_json, result)
    return 0


# ---------------------------------------------------------------------------------------------
# compare

def has_contraction(src):
    """Whether the AIR text accumulates a product (a GEMM or convolution): `X += ... * ...`."""
    return bool(re.search(r"\+=[^;]*\*", re.sub(r"#[^\n]*", "", src)))


def tolerance_for(t, tol_override, tf32, upstream=None):
    """The tolerance of output t: its dtype's, or TF32's for an f32 output of a TF32
    reference; upstream, when given, the dtypes of the tensors its value is computed from: an
    output wider than one of them carries that one's rounding (a gradient kept in f32 of a
    training step computed in bf16), so it gets the narrower dtype's tolerance."""
    if t.kind != "float":
        return 0.0
    if tol_override is not None:
        return tol_override
    tol = TF32_TOLERANCE if t.dtype == "f32" and tf32 else TOLERANCE[t.dtype]
    for d in upstream or ():
        tol = max(tol, TOLERANCE.get(d, 0.0))
    return tol


def upstream_dtypes(air):
    """name -> the float dtypes of the tensors that the kernels writing `name` touch, and of
    those the kernels writing them touch, transitively (from the AIR text, read once: a
    kernel's statements write the names before `=`, `+=`, ...; it touches every tensor name in
    it).  Empty sets when the text is not at hand."""
    src = air.source() if hasattr(air, "source") else None
    if not src:
        return lambda name: set()
    dt = {t.name: t.dtype for t in air.tensors if t.kind == "float"}
    names = {t.name for t in air.tensors}
    text = re.sub(r"#[^\n]*", "", src)
    kernels = []
    for b in re.split(r"\bkernel\s+\w+[^{]*\{", text)[1:]:
        words = set(re.findall(r"[A-Za-z_]\w*", b)) & names
        writes = set(re.findall(r"([A-Za-z_]\w*)\s*(?:\[[^;=]*\])?\s*(?:=|\+=|\*=|max=|min=)(?!=)", b)) & names
        # a collective (AIR 1.2) writes its target: `reduce_scatter(dp, sum, dim = 0) g <- g_partial;`
        writes |= set(re.findall(r"\b(?:all_reduce|all_gather|reduce_scatter|all_to_all|broadcast)"
                                 r"\s*\([^)]*\)\s*([A-Za-z_]\w*)", b)) & names
        kernels.append((writes, words))

    def of(name):
        seen, todo, out = set(), [name], set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            for writes, words in kernels:
                if n in writes:
                    out |= {dt[u] for u in words if u in dt}
                    todo.extend(words)
        return out
    return of


def fmt_index(idx):
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def fmt_box(idx_arrays):
    parts = []
    for ix in idx_arrays:
        lo, hi = int(ix.min()), int(ix.max()) + 1
        parts.append(str(lo) if hi == lo + 1 else f"{lo}:{hi}")
    return "[" + ", ".join(parts) + "]"


def fmt_num(x):
    return f"{float(x):.6g}"


def finite_or_none(x):
    x = float(x)
    return x if math.isfinite(x) else None


def rel_l2_over(x, y, np):
    """||x - y|| / ||y|| over the elements where both are finite (||y|| = 0: ||x - y||)."""
    x, y = x.astype(np.float64), y.astype(np.float64)
    both = np.isfinite(x) & np.isfinite(y)
    d = np.where(both, x - y, 0.0)
    yy = np.where(both, y, 0.0)
    num, den = float(np.sqrt(np.sum(d * d))), float(np.sqrt(np.sum(yy * yy)))
    return num / den if den > 0 else num


def finite_norm(x, np):
    x = x.astype(np.float64)
    return float(np.sqrt(np.sum(np.where(np.isfinite(x), x, 0.0) ** 2)))


def vanishing(a, r, r64, a64, acc, np):
    """None when the output does not vanish (the float64 runs are not both below VANISHING
    times ||r||); else (passes, what decided): the exact value is zero and the f32 values are
    rounding, so the AIR's (its f32 run's or, smaller, its accumulator run's) norm is its
    error and the reference's norm the reference's: the AIR passes within
    REF_ERROR_MULTIPLE of it."""
    n_r, n_r64, n_a64 = finite_norm(r, np), finite_norm(r64, np), finite_norm(a64, np)
    if not (n_r > 0 and n_r64 <= VANISHING * n_r and n_a64 <= VANISHING * n_r):
        return None
    n_a = finite_norm(a, np)
    n_acc = finite_norm(acc, np) if acc is not None else None
    own = min(n_a, n_acc) if n_acc is not None else n_a
    k = REF_ERROR_MULTIPLE
    head = (f"vanishes: its float64 value is {n_r64:.3g} (the reference's) and {n_a64:.3g} (the "
            f"AIR's), below 2^-20 of the reference's f32 norm {n_r:.3g}: the f32 values are "
            f"rounding, the AIR's norm {n_a:.3g}" +
            (f" ({n_acc:.3g} with its sums exact)" if n_acc is not None else ""))
    if own <= k * n_r:
        return True, f"{head} <= {k:g} x the reference's"
    return False, f"{head} > {k:g} x the reference's"


def float64_rule(a, r, tol, r64, a64, np, acc=None, dec=None):
    """The float64 rule for an output outside tol of the reference r: r64 is the reference's
    float64 run, a64 the AIR program's (or None), acc its accumulator run (or None), dec the
    reference's decomposed run (or None).  Returns (passes, fields for the verdict, a
    sentence on what decided)."""
    k = REF_ERROR_MULTIPLE
    e_air, e_ref = rel_l2_over(a, r64, np), rel_l2_over(r, r64, np)
    limit = max(tol, k * min(e_ref, tol))
    f = {"rel_l2_f64": e_air, "ref_rel_l2_f64": e_ref, "tol_f64": limit, "air64_rel_l2": None,
         "airacc_rel_l2": None, "refdec_rel_l2": None}
    if e_air <= limit:
        return True, f, (f"against float64: rel_l2 {e_air:.3g} <= {k:g} x the reference's own "
                         f"{e_ref:.3g}")
    why = (f"against float64 rel_l2 {e_air:.3g} > {limit:.3g} = max(tol, {k:g} x the "
           f"reference's own {e_ref:.3g}" + (", counted up to tol" if e_ref > tol else "") + ")")
    if a64 is None:
        return False, f, why
    e64 = f["air64_rel_l2"] = rel_l2_over(a64, r64, np)
    vanish = vanishing(a, r, r64, a64, acc, np)
    if vanish is not None:
        return vanish[0], f, vanish[1]
    c = AIR_ERROR_CEILING
    # The reference's f32 error: its own, or, where that is larger, its decomposed run's (the
    # same step with PyTorch's f32 decompositions of the normalizations, not the CPU kernels
    # that accumulate in double).
    e_dec = f["refdec_rel_l2"] = rel_l2_over(dec, r64, np) if dec is not None else None
    e_f32, whose = ((e_dec, "decomposed run's") if e_dec is not None and e_dec > e_ref else
                    (e_ref, "own"))
    own = (f"{c:g} x tol" if c * tol >= k * e_f32 else
           f"{k:g} x the reference's {whose} {e_f32:.3g}")
    ceiling = max(c * tol, k * e_f32)
    if e64 <= tol and e_air <= ceiling:
        return True, f, (f"against float64: the AIR's float64 run within tol, rel_l2 {e64:.3g}; "
                         f"its own error {e_air:.3g} <= {own}")
    if e64 > tol:
        return False, f, why + f"; the AIR run in float64: rel_l2 {e64:.3g} > tol {tol:g}"
    why += f"; the AIR run in float64: rel_l2 {e64:.3g}, but its own error {e_air:.3g} > {own}"
    if acc is None:
        return False, f, why
    e_acc = f["airacc_rel_l2"] = rel_l2_over(acc, r64, np)
    if e_acc <= ceiling:
        return True, f, (f"against float64: the AIR's float64 run within tol, rel_l2 {e64:.3g}; "
                         f"its own error {e_air:.3g} is its serial sums': with them exact "
                         f"(rounded once) {e_acc:.3g} <= {own}")
    return False, f, why + f", {e_acc:.3g} with its sums exact (rounded once)"



def compare_arrays(a, r, tol, exact, ref_f64=None, air_f64=None, air_acc=None, ref_dec=None):
    """Compares the AIR result a with the reference r; ref_f64 (the reference's float64 run),
    air_f64 (the AIR program's), air_acc (its accumulator run) and ref_dec (the reference's
    decomposed run) decide by the float64 rule where a is outside tol of r.  Returns the
    verdict entry (without its name)."""
    import numpy as np
    res = {"rel_l2": None, "max_abs": None, "tol": tol, "pass": False, "reason": ""}
    if a.shape != r.shape:
        res["reason"] = (f"shape {fmt_index(a.shape)} of air differs from the reference's "
                         f"{fmt_index(r.shape)}")
        return res
    if a.ndim == 0:   # a scalar tensor: indices below need one dimension
        a, r = a.reshape(1), r.reshape(1)
    if a.dtype.kind not in "biuf" or r.dtype.kind not in "biuf":
        res["reason"] = f"cannot compare dtypes {a.dtype} (air) and {r.dtype} (reference)"
        return res
    a64 = a.astype(np.float64)
    r64 = r.astype(np.float64)
    fa, fr = np.isfinite(a64), np.isfinite(r64)
    both = fa & fr
    d = np.where(both, a64 - r64, 0.0)
    num = float(np.sqrt(np.sum(d * d)))
    rr = np.where(fr, r64, 0.0)
    den = float(np.sqrt(np.sum(rr * rr)))
    absd = np.abs(d)
    res["max_abs"] = float(absd.max()) if absd.size else 0.0
    res["rel_l2"] = num / den if den > 0 else num   # ||r|| = 0: the absolute L2 error
    reasons = []
    poisoned = ~fa & fr
    if poisoned.any():
        n_nan = int(np.isnan(a64[poisoned]).sum())
        first = np.argwhere(poisoned)[0]
        reasons.append(f"air has {int(poisoned.sum())} non-finite values ({n_nan} NaN, "
                       f"{int(poisoned.sum()) - n_nan} Inf) where the reference is finite, "
                       f"first at {fmt_index(first)}, within {fmt_box(np.nonzero(poisoned))}: "
                       "unwritten or poisoned elements?")
    ref_nf = ~fr
    if ref_nf.any():
        same = (np.isnan(a64) & np.isnan(r64)) | (a64 == r64)
        bad = ref_nf & ~same
        if bad.any():
            first = tuple(np.argwhere(bad)[0])
            reasons.append(f"{int(bad.sum())} elements where the reference is not finite "
                           f"differ, first at {fmt_index(first)}: air {fmt_num(a64[first])}, "
                           f"reference {fmt_num(r64[first])}")
    if exact:
        err_bad = num > 0
    else:
        err_bad = not (res["rel_l2"] <= tol)
    why64 = None
    if not exact and ref_f64 is not None and ref_f64.size == r.size:   # (reported always)
        a64s, acc, dec = (None if x is None or x.size != r.size else x.reshape(r.shape)
                          for x in (air_f64, air_acc, ref_dec))
        ok64, fields, why64 = float64_rule(a, r, tol, ref_f64.reshape(r.shape), a64s, np, acc,
                                           dec)
        res.update(fields)
        if not err_bad:
            why64 = None
        elif ok64:
            err_bad = False
            res["check"] = why64
    if err_bad:
        rms = den / np.sqrt(max(int(fr.sum()), 1))
        thr = 0.0 if exact else tol * (rms if rms > 0 else 1.0)
        differ = both & (absd > thr)
        worst = tuple(np.unravel_index(int(np.argmax(absd)), absd.shape)) if absd.size else ()
        what = "differ" if exact else f"differ by more than tol * rms(ref) = {thr:.3g}"
        head = (f"{int(np.sum(a64 != r64))} of {a.size} elements differ" if exact else
                f"rel_l2 {res['rel_l2']:.3g} > tol {tol:g}" +
                (" (the reference is all zero: absolute L2)" if den == 0 else ""))
        msg = head
        if differ.any():
            if not exact:
                msg += f"; {int(differ.sum())} of {a.size} elements {what}"
            msg += f", within {fmt_box(np.nonzero(differ))}"
        msg += (f"; worst at {fmt_index(worst)}: air {fmt_num(a64[worst])}, "
                f"reference {fmt_num(r64[worst])}")
        res["worst"] = {"index": [int(i) for i in worst], "air": finite_or_none(a64[worst]),
                        "reference": finite_or_none(r64[worst])}
        if why64:
            msg = f"{head}; {why64}{msg[len(head):]}"
        reasons.insert(0, msg)
    res["pass"] = not reasons
    res["reason"] = "; ".join(reasons)
    return res


def float64_files(np, dirp, t, ref):
    """(the reference's float64 run of tensor t, the AIR program's float64 run or None, its
    accumulator run or None, the reference's decomposed run or None, why there is no float64
    reference or None): DIR/ref64_<name>.npy, DIR/air64_<name>.npy, DIR/airacc_<name>.npy
    and DIR/refdec_<name>.npy, for a float tensor narrower than f64 (ref.json's "float64"
    says why one is missing)."""
    if t.kind != "float" or t.dtype == "f64":
        return None, None, None, None, None
    arrays = []
    for stem in ("ref64", "air64", "airacc", "refdec"):
        p = dirp / f"{stem}_{t.name}.npy"
        try:
            arrays.append(np.load(p, allow_pickle=False) if p.exists() else None)
        except Exception:   # noqa: BLE001 - an unreadable file judges nothing
            arrays.append(None)
    if arrays[0] is None:
        info = ref.get("float64") if isinstance(ref.get("float64"), dict) else {}
        why = (info.get("not_written") or {}).get(t.name) or "the reference has no float64 run"
        return None, None, None, None, f"no float64 run of the reference ({why})"
    return (*arrays, None)


def cmd_compare(args):
    if args.tol is not None and not (args.tol >= 0):
        raise HarnessError("usage: --tol takes a number >= 0")
    ensure_interpreter(["numpy"])
    import numpy as np
    air = Air(args.air)
    dirp = pathlib.Path(args.dir)
    ref = {}
    ref_path = dirp / "ref.json"
    if ref_path.exists():
        try:
            ref = json.loads(ref_path.read_text())
        except ValueError:
            raise HarnessError(f"usage: {ref_path} is not JSON")
        if ref.get("ok") is False:
            raise HarnessError(f"usage: the reference run failed: {ref.get('error', '?')}")
    # TF32 loosens f32 outputs when the reference ran with a TF32 flag on and the program
    # has a contraction.  A kernel's [math = tf32] does not: the AIR program computes in f32.
    tf32 = any(bool(v) for v in (ref.get("flags") or {}).values())
    if tf32:
        src = air.source()
        tf32 = bool(air.data.get("contraction", has_contraction(src) if src else True))
    outputs = []
    targets = air.role("out", "inout")
    if not targets:
        raise HarnessError(f"usage: {args.air} declares no out or inout tensor")
    upstream = upstream_dtypes(air)
    for t in targets:
        rp, ap = dirp / f"ref_{t.name}.npy", dirp / f"air_{t.name}.npy"
        tol = tolerance_for(t, args.tol, tf32, upstream(t.name))
        if not rp.exists():
            raise HarnessError(f"usage: {rp} is missing: run `harness.py run` first")
        try:
            r = np.load(rp, allow_pickle=False)
        except Exception as e:
            raise HarnessError(f"usage: cannot read {rp}: {one_line(e)}")
        entry = {"name": t.name}
        if not ap.exists():
            entry.update(rel_l2=None, max_abs=None, tol=tol, reason=f"{ap.name} is missing: "
                         "the AIR program wrote no result for it")
            entry["pass"] = False
        else:
            try:
                a = np.load(ap, allow_pickle=False)
            except Exception as e:
                a = None
                entry.update(rel_l2=None, max_abs=None, tol=tol, reason=f"cannot read "
                             f"{ap.name}: {one_line(e)}")
                entry["pass"] = False
            if a is not None:
                if list(r.shape) != t.shape:
                    raise HarnessError(f"usage: {rp.name} has shape {fmt_index(r.shape)}, "
                                       f"but {t.describe()}: rerun `harness.py run`")
                ref_f64, air_f64, air_acc, ref_dec, no64 = float64_files(np, dirp, t, ref)
                entry.update(compare_arrays(a, r, tol, t.kind != "float", ref_f64, air_f64,
                                            air_acc, ref_dec))
                if no64 and not entry["pass"]:
                    entry["no_float64"] = no64
                    entry["reason"] += f"; judged against the reference alone: {no64}"
        entry["dtype"] = t.dtype
        entry["shape"] = t.shape
        outputs.append(entry)
    ok = all(o["pass"] for o in outputs)
    print(json.dumps({"outputs": outputs, "pass": ok, "tf32": tf32}, allow_nan=False))
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# localise: which AIR kernel first computes wrong values (docs/validate.md, "Localising a
# mismatch").  solar wrote DIR/localise.json: per kernel in program order its name, place,
# the tensors it reads and writes, and its checks: a tensor whose last writer it is and for
# which the original has a value (ref_<t>.npy for out/inout, tap_<t>.npy for a tmp).  The
# AIR program ran once with, after each kernel, every checked tensor written to
# loc_<t>.npy and then replaced by the original's value, so each kernel ran on the
# original's values of every checked tensor it reads.

def cmd_localise(args):
    ensure_interpreter(["numpy"])
    import numpy as np
    air = Air(args.air)
    dirp = pathlib.Path(args.dir)
    try:
        plan = json.loads((dirp / "localise.json").read_text())
        ref = json.loads((dirp / "ref.json").read_text())
    except (OSError, ValueError) as e:
        raise HarnessError(f"usage: cannot read {dirp}/localise.json and ref.json "
                           f"({one_line(e)}): run solar validate")
    by_name = {t.name: t for t in air.tensors}
    tap_info = {x["tensor"]: x for x in ref.get("taps") or []}
    tf32 = any(bool(v) for v in (ref.get("flags") or {}).values()) and \
        bool(air.data.get("contraction", True))
    upstream = upstream_dtypes(air)
    kernels = plan.get("kernels") or []
    # state: tensor -> set of kernels whose unchecked writes it holds (empty: the original's)
    pending = {t.name: set() for t in air.tensors}
    deps, hidden, results, first = [], [], [], None
    for k, kern in enumerate(kernels):
        dep = set()
        touched = set(kern.get("reads", [])) | set(kern.get("writes", []))
        for u in touched:
            dep |= pending.get(u, set())
        deps.append(dep)
        hidden.append(sorted(u for u in touched if pending.get(u)))
        checks = []
        for c in kern.get("checks", []):
            t = by_name[c["tensor"]]
            tol = tolerance_for(t, args.tol, tf32, upstream(t.name))
            against = "the original's output"
            if c["tensor"] in tap_info:
                tap = tap_info[c["tensor"]]
                against = tap["source"]
                air_dt = {v[0]: d for d, v in AIR_DTYPES.items()}.get(tap.get("dtype"))
                if air_dt in TOLERANCE and args.tol is None and t.kind == "float":
                    tol = max(tol, TOLERANCE[air_dt])   # the looser of the two dtypes'
            try:
                a = np.load(dirp / c["air"], allow_pickle=False)
                r = np.load(dirp / c["ref"], allow_pickle=False)
            except Exception as e:
                raise HarnessError(f"usage: cannot read the files of check '{c['tensor']}' "
                                   f"({one_line(e)})")
            v = compare_arrays(a, r, tol, exact=t.kind != "float")
            v.update(tensor=t.name, against=against)
            checks.append(v)
        for w in kern.get("writes", []):
            checked = any(c["tensor"] == w for c in kern.get("checks", []))
            pending[w] = set() if checked else pending.get(w, set()) | {k}
        bad = [c for c in checks if not c["pass"]]
        results.append({"kernel": kern["name"], "where": kern.get("where"), "checks": checks})
        if bad and first is None:
            first = (k, bad[0])
    out = {"localised": first is not None, "kernels": results}
    if first is not None:
        k, c = first
        suspects, todo = set(), [k]
        while todo:
            j = todo.pop()
            if j not in suspects:
                suspects.add(j)
                todo.extend(deps[j])
        names = [kernels[j]["name"] for j in sorted(suspects)]
        out.update(kernel=kernels[k]["name"], where=kernels[k].get("where"), tensor=c["tensor"],
                   against=c["against"], reason=c["reason"], worst=c.get("worst"),
                   rel_l2=c["rel_l2"], tol=c["tol"], suspects=names, unexposed=hidden[k],
                   also_wrong=[r["kernel"] for i, r in enumerate(results)
                               if i > k and any(not x["pass"] for x in r["checks"])])
    print(json.dumps(out, allow_nan=False))
    return 0


# ---------------------------------------------------------------------------------------------

def cmd_env(args):
    ensure_interpreter(["numpy", "torch"])
    import numpy
    import torch
    info = {"python": sys.executable, "numpy": numpy.__version__, "torch": torch.__version__,
            "cuda": bool(torch.cuda.is_available()),
            "jax": None}
    try:
        import jax
        info["jax"] = jax.__version__
    except Exception:
        pass
    print(json.dumps(info))
    return 0


class Parser(argparse.ArgumentParser):
    def error(self, message):   # one line, exit 2
        print(f"usage: {message} (see {self.prog} --help)", file=sys.stderr)
        sys.exit(2)


# ---------------------------------------------------------------------------------------------
# Programs with a mesh (docs/validate.md, "Programs on many GPUs"): the reference ran the whole
# model at the whole tensors' shapes (DIR/air_global.json); `shard` rewrites each file of a
# tensor the program declares with a layout or that a rank holds whole into the single-process
# form's: one part per rank, stacked along a new first dimension.  A rank's part of a
# split(A, d) tensor is block coord_A(rank) along d; of a replicated or partial one, the whole
# tensor (the single-process form sums a partial output over its axis before the comparison).
# The reference's taps of tmps are dropped: a tmp has no layout, so localising a mismatch
# compares the outputs only.

def rank_part(np, arr, t, mesh, rank):
    idx = [slice(None)] * arr.ndim
    for ly in t["layout"]:
        if ly["kind"] != "split":
            continue
        ax = mesh[ly["axis"]]
        c = (rank // ax["stride"]) % ax["size"]
        n = t["local_shape"][ly["dim"]]
        idx[ly["dim"]] = slice(c * n, (c + 1) * n)
    return arr[tuple(idx)]


def cmd_shard(args):
    ensure_interpreter(["numpy"])
    import numpy as np
    air = Air(args.air)
    dirp = pathlib.Path(args.dir)
    mesh_list = air.data.get("mesh")
    if not isinstance(mesh_list, list) or not mesh_list:
        raise HarnessError(f"usage: {args.air} has no \"mesh\"")
    mesh = {m["name"]: m for m in mesh_list}
    ranks = 1
    for m in mesh_list:
        ranks *= int(m["size"])
    for stale in dirp.glob("tap_*.npy"):
        stale.unlink()
    done = []
    for t in air.data["tensors"]:
        for prefix in ("in_", "ref_", "ref64_", "refdec_"):
            path = dirp / f"{prefix}{t['name']}.npy"
            if not path.exists():
                continue
            arr = np.load(path)
            if list(arr.shape) != [int(x) for x in t["shape"]]:
                raise HarnessError(f"shard: {path.name} has shape {fmt_shape(arr.shape)}, "
                                   f"not the whole tensor's {fmt_shape(t['shape'])}")
            parts = np.stack([rank_part(np, arr, t, mesh, r) for r in range(ranks)])
            np.save(path, np.ascontiguousarray(parts))
            done.append(path.name)
    print(json.dumps({"tensors": done, "ranks": ranks}))
    return 0


def main(argv=None):
    p = Parser(prog="harness.py", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", parser_class=Parser)
    r = sub.add_parser("run", help="run the reference model and write in_/ref_*.npy, ref.json")
    r.add_argument("--ref", required=True, help="the model, MODEL.py")
    r.add_argument("--air", required=True, help="DIR/air.json")
    r.add_argument("--dir", required=True, help="where the .npy files and ref.json go")
    r.add_argument("--device", choices=("cuda", "cpu"),
                   help="where the model runs (default: cuda when there is a GPU, else cpu)")
    r.add_argument("-D", dest="define", action="append", metavar="NAME=V", default=[])
    r.add_argument("--runs", type=int, default=20, help="timed runs on CUDA (default 20)")
    r.add_argument("--warmup", type=int, default=3, help="warm-up runs on CUDA (default 3)")
    c = sub.add_parser("compare", help="compare DIR/air_*.npy with DIR/ref_*.npy")
    c.add_argument("--air", required=True)
    c.add_argument("--dir", required=True)
    c.add_argument("--tol", type=float, help="relative L2 tolerance for every float output")
    lc = sub.add_parser("localise", help="which AIR kernel first computes wrong values "
                        "(DIR/localise.json, written by solar validate)")
    lc.add_argument("--air", required=True)
    lc.add_argument("--dir", required=True)
    lc.add_argument("--tol", type=float, help="relative L2 tolerance for every float tensor")
    sh = sub.add_parser("shard", help="cut the whole tensors' files into the ranks' parts "
                        "(a program with a mesh, DIR/air_global.json)")
    sh.add_argument("--air", required=True)
    sh.add_argument("--dir", required=True)
    sh.add_argument("--tol", type=float, help="ignored (the comparison's)")
    sub.add_parser("env", help="print the interpreter and packages the harness uses")
    args = p.parse_args(argv)
    if not args.cmd:
        p.error("a command is needed: run, compare or env")
    try:
        return {"run": cmd_run, "compare": cmd_compare, "localise": cmd_localise,
                "shard": cmd_shard, "env": cmd_env}[args.cmd](args)
    except HarnessError as e:
        print(one_line(e, 2000), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except SystemExit as e:   # only the model's code exits inside a command
        print(f"model: {args.ref if args.cmd == 'run' else 'the model'} called "
              f"sys.exit({e.code!r}) instead of returning", file=sys.stderr)
        return 2
    except Exception as e:   # a bug here, or in a model path not caught above: still one line
        if os.environ.get("SOLAR_HARNESS_DEBUG"):
            raise
        print(f"harness: internal error: {type(e).__name__}: {one_line(e)} "
              "(SOLAR_HARNESS_DEBUG=1 shows the traceback)", file=sys.stderr)
        return 2


# ---------------------------------------------------------------------------------------------
# The test suite's server (tests/translate/run.sh): `harness.py serve SOCKET [IDLE_S]` imports
# PyTorch once, then serves `harness.py run` requests from clients started with
# SOLAR_HARNESS_SERVER=SOCKET: the client (a Python without any import of torch) sends its
# arguments, folder, environment and its stdin/stdout/stderr over the Unix socket; the server
# forks, and the child runs main() exactly as the client would have, in the client's folder and
# environment, writing to the client's own streams, and sends back the exit status.  A client
# that cannot reach the server runs the request itself.  The server exits after IDLE_S seconds
# (default 300) without a request.

def serve(path, idle_s=300.0, frameworks=("torch",)):
    """frameworks: what is imported once, here, for every request (a JAX translator's server
    imports jax, which that process has imported already, and not PyTorch)."""
    import importlib
    import signal
    import socket
    import numpy  # noqa: F401 - imported once, here, for every request
    for name in frameworks:
        try:
            importlib.import_module(name)
        except ImportError:   # the request imports what it needs, and says so if it cannot
            pass
    def reap():   # (reaped here, so that os.times() counts the children's CPU)
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass

    def stop(*_):
        raise SystemExit(0)
    signal.signal(signal.SIGTERM, stop)
    if os.path.exists(path):
        os.remove(path)
    lsn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsn.bind(path)
    lsn.listen(16)
    lsn.settimeout(idle_s)
    try:
        while True:
            reap()
            try:
                conn, _ = lsn.accept()
            except socket.timeout:
                return 0
            if os.fork() == 0:
                lsn.close()
                conn.settimeout(None)
                rc = 2
                try:
                    msg, fds, _, _ = socket.recv_fds(conn, 1 << 20, 3)
                    while not msg.endswith(b"\n"):
                        more = conn.recv(1 << 20)
                        if not more:
                            break
                        msg += more
                    req = json.loads(msg)
                    for i, fd in enumerate(fds):
                        os.dup2(fd, i)
                    sys.stdin = open(0, closefd=False)
                    sys.stdout = open(1, "w", closefd=False)
                    sys.stderr = open(2, "w", closefd=False)
                    os.chdir(req["cwd"])
                    os.environ.clear()
                    os.environ.update(req["env"])
                    sys.argv = [os.path.abspath(__file__)] + req["argv"]
                    try:
                        rc = main(req["argv"])
                    except SystemExit as e:
                        rc = e.code if isinstance(e.code, int) else 2
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    try:
                        conn.sendall(f"{rc}\n".encode())
                    finally:
                        os._exit(rc if isinstance(rc, int) else 2)
            conn.close()
    finally:
        lsn.close()
        if os.path.exists(path):
            os.remove(path)
        reap()
        t = os.times()
        print(f"harness server: CPU {t.user + t.system:.1f} s, its requests "
              f"{t.children_user + t.children_system:.1f} s", file=sys.stderr)


def serve_client(path):
    """The exit status of this request run by the server at `path`, or None when there is none."""
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError:
        return None
    msg = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)})
    socket.send_fds(s, [msg.encode() + b"\n"], [0, 1, 2])
    reply = b""
    while not reply.endswith(b"\n"):
        more = s.recv(64)
        if not more:
            print("harness: the server ended without an exit status", file=sys.stderr)
            return 2
        reply += more
    return int(reply)


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"] and len(sys.argv) in (3, 4):
        sys.exit(serve(sys.argv[2], float(sys.argv[3]) if len(sys.argv) == 4 else 300.0))
    if sys.argv[1:2] == ["run"] and os.environ.get("SOLAR_HARNESS_SERVER"):
        served = serve_client(os.environ["SOLAR_HARNESS_SERVER"])
        if served is not None:
            sys.exit(served)
    sys.exit(main())
