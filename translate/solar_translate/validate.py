"""Validation of a translation: `solar validate --backend cpu` at small sizes.

Sizes are shrunk so that the run takes seconds: each size symbol above 8 is divided by 2, 3,
5 or 7 while it stays at least the target (8, then 16, 32 if a smaller choice makes some
operator's result degenerate, i.e. a dimension that was larger than 1 becomes 1, or the model
does not build).  Dividing by small primes keeps the divisibility the model relies on
(dim = heads * head_dim) as far as the factors allow.

When every size of the written AIR is a `param`, the written file itself is validated with
`-D` at those sizes.  When some are `const`s (a size that multiplies an iterator in an index,
e.g. the stride of a reshape), `-D` cannot change them, so the model is translated again at
the small sizes and that translation is validated, through a wrapper model file that sets
the module constants (the harness sets only AIR params).
"""
import ast
import os
import shutil
import sys
import tempfile

from . import limits
from .limits import own_limits


def shrink(v, target):
    if v <= target:
        return v
    w = v
    while w > target:
        for p in (2, 3, 5, 7):
            if w % p == 0 and w // p >= target:
                w //= p
                break
        else:
            break
    return w if w <= 4 * target else target


def op_shapes(torch, mod, path):
    """The output shapes of every ATen op of one forward on meta (cheap: no export)."""
    from torch.utils._python_dispatch import TorchDispatchMode
    from .torch_frontend import build

    shapes = []

    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            for x in (r if isinstance(r, (list, tuple)) else [r]):
                if isinstance(x, torch.Tensor):
                    shapes.append(tuple(int(s) for s in x.shape))
            return r
    model, inputs = build(torch, mod, path)
    with torch.no_grad(), Rec():
        model(*inputs)
    return shapes


def pick_sizes(res, path):
    import torch
    return pick(res, lambda: op_shapes(torch, res.module, path))


# What a size constant may be computed from: arithmetic on integers and other constants.
ARITH = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Add,
         ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd)


def derived_constants(path):
    """[(NAME, expression)] in file order: the module-level constants that the file computes
    from other names (`HEAD_DIM = DIM // N_HEADS`, `HIDDEN = 4 * D`) with integer arithmetic,
    by their last module-level assignment; [] when the file cannot be parsed."""
    try:
        tree = ast.parse(open(path, "rb").read(), path)
    except (OSError, SyntaxError, ValueError):
        return []
    found = {}
    for st in tree.body:
        if isinstance(st, ast.Assign):
            pairs = []
            for t in st.targets:
                if isinstance(t, ast.Name):
                    pairs.append((t.id, st.value))
                elif (isinstance(t, ast.Tuple) and isinstance(st.value, ast.Tuple)
                      and len(t.elts) == len(st.value.elts)):
                    pairs += [(a.id, v) for a, v in zip(t.elts, st.value.elts) if isinstance(a, ast.Name)]
                elif isinstance(t, ast.Tuple):
                    pairs += [(a.id, None) for a in t.elts if isinstance(a, ast.Name)]
        elif isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
            pairs = [(st.target.id, st.value)]
        else:
            continue
        for name, v in pairs:
            found.pop(name, None)
            if (v is not None and all(isinstance(x, ARITH) for x in ast.walk(ast.Expression(v)))
                    and any(isinstance(x, ast.Name) for x in ast.walk(v))):
                found[name] = v
    return list(found.items())


def follow(small, values, derived):
    """small with the derived constants recomputed from it: values holds every constant's
    value as the module stands; a derived constant is set to what its expression gives at the
    small values (replacing its own shrunk value), and added to small when that differs."""
    env = dict(values, **small)
    out = dict(small)
    for name, e in derived:
        if name not in values:
            continue
        try:
            v = eval(compile(ast.Expression(e), "<size>", "eval"), {"__builtins__": {}}, dict(env))  # noqa: S307 - arithmetic only (ARITH)
        except Exception:  # noqa: BLE001 - a name that is not a constant, a division by zero
            continue
        if type(v) is int and (v != values[name] or name in small):
            env[name] = out[name] = v
    return out


def pick(res, shapes):
    """Each size of the AIR shrunk (shrink: to 8, else 16, 32, 64) so that no dimension of any
    operator's result that was above 1 becomes 1 and the module still builds; shapes() is the
    frontend's list of those results for the module as it stands.  A constant the file computes
    from others (derived_constants) is not shrunk on its own but recomputed from their small
    values, so `HEAD_DIM = DIM // N_HEADS` still holds."""
    from .sizes import int_constants
    mod = res.module
    base = {n: getattr(mod, n) for n in res.params + res.consts if isinstance(getattr(mod, n, None), int)}
    derived = derived_constants(getattr(mod, "__file__", None) or "")
    values = int_constants(mod)
    try:
        ref = shapes()
    except Exception:  # noqa: BLE001
        ref = None
    for target in (8, 16, 32, 64):
        small = follow({n: shrink(v, target) for n, v in base.items()}, values, derived)
        for n, v in small.items():
            setattr(mod, n, v)
        try:
            got = shapes()
            ok = ref is None or len(got) != len(ref) or all(
                not (a > 1 and b == 1) for ra, rb in zip(ref, got) if len(ra) == len(rb)
                for a, b in zip(ra, rb))
        except Exception:  # noqa: BLE001
            ok = False
        finally:
            for n in small:
                setattr(mod, n, values.get(n, base.get(n)))
        if ok:
            return small
    return dict(base)


# The wrapper that the harness runs as the reference: the user's file with its module
# constants at the validation sizes (set again before every call), and the frontend's entries.
WRAPPER = '''"""Generated by {tool}: {model} with its module constants at the validation sizes."""
import importlib.util as _u
import sys as _s
import {lib}  # noqa: F401  (the harness's {convention} convention)
_s.path.insert(0, {dir!r})
_spec = _u.spec_from_file_location("{modname}", {path!r})
_m = _u.module_from_spec(_spec)
_spec.loader.exec_module(_m)
{assign}
_NAMES = {names!r}


def _sync():
    for _k in _NAMES:
        setattr(_m, _k, globals()[_k])
{entries}'''

# What differs between the frontends: the wrapper's entries, the words of the messages, the
# reference's file name, the environment of `solar validate`, and where the sizes and the
# translation come from (module, function names).
FRONTENDS = {
    "torch": dict(tool="solar translate", lib="torch", convention="PyTorch",
                  modname="_solar_validated_model", ref="model.py", own="(the model's own)",
                  what="the model", example="1/sqrt(d)", against="", env={},
                  module="translate", sizes_module="validate", entries='''


Model = _m.Model   # its constant parameters are drawn at random by solar validate's harness


def get_inputs():
    _sync()
    return _m.get_inputs()


def get_init_inputs():
    _sync()
    return _m.get_init_inputs() if hasattr(_m, "get_init_inputs") else []
'''),
    "jax": dict(tool="solar translate --jax", lib="jax", convention="JAX",
                modname="_solar_validated_fn", ref="fn.py", own="(the file's own)",
                what="fn", example="HEAD_DIM ** -0.5", against="against fn ",
                env={"JAX_PLATFORMS": "cpu"}, module="jax_frontend", sizes_module="jax_frontend",
                entries='''

def get_inputs():
    """fn's inputs; a floating-point input whose elements are all equal (a layer norm's gain
    jnp.ones, its bias jnp.zeros) drawn at random instead, as the PyTorch wrapper does for
    parameters: a translation that drops it would pass on ones and zeros."""
    import numpy as np
    import jax.numpy as jnp
    _sync()
    _s_rng = np.random.RandomState(20261201)
    _out = []
    for _x in _m.get_inputs():
        _a = jnp.asarray(_x)
        if jnp.issubdtype(_a.dtype, jnp.inexact) and _a.size:
            _f = np.asarray(_a, dtype=np.float64).ravel()
            _c = _f[0]
            if np.isfinite(_c) and np.all(_f == _c):
                _u = _s_rng.random_sample(_a.shape)
                _x = jnp.asarray(_u - 0.5 if _c == 0 else _c * (0.5 + _u)).astype(_a.dtype)
        _out.append(_x)
    return _out


def fn(*args):
    _sync()
    return _m.fn(*args)
'''),
}


def wrapper(path, small, frontend="torch"):
    f = FRONTENDS[frontend]
    return WRAPPER.format(tool=f["tool"], lib=f["lib"], convention=f["convention"], modname=f["modname"],
                          model=os.path.basename(path), dir=os.path.dirname(os.path.abspath(path)),
                          path=os.path.abspath(path), names=list(small), entries=f["entries"],
                          assign="\n".join(f"{k} = {v}" for k, v in small.items()))


def body(text):
    """The program without comments and size declarations: what -D cannot change."""
    keep = []
    for ln in text.splitlines():
        ln = ln.split("#", 1)[0].rstrip()
        if ln and not ln.startswith(("param ", "const ")):
            keep.append(ln)
    return keep


def prepare(path, out, res, work, frontend="torch"):
    """The validation's files in `work`: validate.air, the translation at the small sizes, and
    the wrapper (model.py, or fn.py for --jax) of the user's file with its constants at those
    sizes.  Returns (air, ref, how), or raises TranslateError (its message naming the sizes)
    when the file cannot be translated at the small sizes."""
    import importlib
    from .opgraph import TranslateError
    from .sizes import int_constants
    f = FRONTENDS[frontend]
    small = importlib.import_module("." + f["sizes_module"], __package__).pick_sizes(res, path)
    sizes = " ".join(f"{k}={v}" for k, v in small.items()) or f["own"]
    if any(v > 64 and v == getattr(res.module, k, None) for k, v in small.items()):
        sys.stderr.write(f"{out}: warning: no smaller sizes build {f['what']} without some result "
                         f"dimension becoming 1, so it is validated at its own sizes ({sizes}), "
                         f"which may take long on the CPU; a constant computed from others "
                         f"(HEAD_DIM = DIM // N_HEADS) follows them, any other must divide as "
                         f"the others do (--no-validate skips the validation)\n")
    translate_file = importlib.import_module("." + f["module"], __package__).translate_file
    try:
        again = translate_file(path, dict(small))
    except TranslateError as e:
        raise TranslateError(f"at the validation sizes ({sizes}): {e.message}", e.line, e.status)
    except RecursionError:
        raise TranslateError(f"at the validation sizes ({sizes}): the model is too deep to "
                             f"translate (recursion limit)")
    except Exception as e:  # noqa: BLE001 - a bug in the translator: one located line
        from .source import first_line, model_line
        raise TranslateError(f"internal error in solar translate at the validation sizes "
                             f"({sizes}): {first_line(e)}", model_line(e, path))
    air = os.path.join(work, "validate.air")
    with open(air, "w") as fh:
        fh.write(again.text)
    ref = os.path.join(work, f["ref"])
    with open(ref, "w") as fh:
        fh.write(wrapper(path, small, frontend))
    mine, theirs = body(res.text), body(again.text)
    own = {n: getattr(res.module, n) for n in res.params
           if type(getattr(res.module, n, None)) is int}
    label = sizes
    if own and all(small.get(n, v) == v for n, v in own.items()):
        # Validated at the file's own sizes, the comparison above compares the file with
        # itself: translate once more with every param doubled (derived constants follow),
        # only to see that -D changes nothing but the sizes (a literal that depends on a size,
        # e.g. a slice start of N - 2 written as 4, shows as a difference).
        other = follow({n: 2 * v for n, v in own.items()}, int_constants(res.module),
                       derived_constants(path))
        try:
            twice = translate_file(path, dict(other))
            theirs = body(twice.text)
            label = " ".join(f"{k}={v}" for k, v in other.items())
        except Exception:  # noqa: BLE001 - the model does not build there: nothing to compare
            sys.stderr.write(f"{out}: note: -D on this file is not checked: it does not translate "
                             f"with its params doubled\n")
    same = mine == theirs
    if same and not res.consts:
        how = f"{sizes}: the same program as {out} with -D at those sizes"
    elif same:
        how = f"{sizes}; {out} has consts {', '.join(res.consts)}, which only a new translation changes"
    else:
        how = f"{sizes}"
        k = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
        first = (f"; the first difference: '{mine[k].strip() if k < len(mine) else '(the end)'}' here, "
                 f"'{theirs[k].strip() if k < len(theirs) else '(the end)'}' at those sizes")
        sys.stderr.write(f"{out}: warning: the translation at {label} differs from this one in more "
                         f"than its sizes (a literal of {f['what']} depends on a size, e.g. a scale "
                         f"{f['example']}): -D on this file is not validated; translate again with -D"
                         f"{first}\n")
    return air, ref, how


def run(solar, path, out, res, o, frontend="torch"):
    """Validates the translation: translated again at small sizes (prepare), run by `solar
    validate --backend cpu` against the user's own code through the wrapper."""
    from .opgraph import TranslateError
    f = FRONTENDS[frontend]
    keep = o.get("keep")
    work = keep or tempfile.mkdtemp(prefix="solar-translate-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, SOLAR_PYTHON=sys.executable, **f["env"])
    try:
        air, ref, how = prepare(path, out, res, work, frontend)
    except BaseException as e:
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        if not isinstance(e, TranslateError):
            raise
        where = f"{path}:{e.line}" if e.line else path
        sys.stderr.write(f"{where}: error: {e.message} ({out} is kept, not validated)\n")
        return 1
    cmd = [solar, "validate", air, "--ref", ref, "--backend", "cpu", "--timeout",
           str(o.get("timeout", 600))]
    if keep:
        cmd += ["--keep", os.path.join(work, "validate")]
    try:
        with own_limits():   # solar validate runs each step under --timeout
            p = limits.run(cmd, env=env)
    except BaseException:    # an interrupt: nothing of the run stays
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        raise
    if p.returncode == 0:
        print(f"{out}: validated: PASS (solar validate --backend cpu {f['against']}at {how})")
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if keep is None:
        keepdir = os.path.splitext(out)[0] + ".validate"
        shutil.rmtree(keepdir, ignore_errors=True)
        shutil.move(work, keepdir)
        work = keepdir
    kind = "FAIL" if p.returncode == 1 else f"error (exit {p.returncode})"
    sys.stderr.write(f"{out}: error: validation {kind} ({how}); the files are kept: {out}, {work}\n")
    return 1
