"""Validation of a translation: `solar validate --backend cpu` (or `--backend cuda`, with
`solar translate --backend cuda`) at small sizes.

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
from .sizes import (constant_values, derived_constants, follow, int_constants, is_shape_value,
                    module_derived)


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
    from .torch_frontend import build, meta_autocast

    shapes = []

    class Rec(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            r = func(*args, **(kwargs or {}))
            for x in (r if isinstance(r, (list, tuple)) else [r]):
                if isinstance(x, torch.Tensor):
                    shapes.append(tuple(int(s) for s in x.shape))
            return r
    model, inputs = build(torch, mod, path)
    with torch.no_grad(), meta_autocast(torch), Rec():   # autocast on meta: as the export
        model(*inputs)
    return shapes


def pick_sizes(res, path):
    import torch
    return pick(res, lambda: op_shapes(torch, res.module, path))


def size_choices(res, path):
    """choices() with the shapes of every ATen op's result."""
    import torch
    return choices(res, lambda: op_shapes(torch, res.module, path))


def pick(res, shapes):
    """The first of choices(), else the file's own sizes."""
    return next(choices(res, shapes), None) or own_sizes(res)


def own_sizes(res):
    mod = res.module
    return {n: getattr(mod, n) for n in res.params + res.consts if isinstance(getattr(mod, n, None), int)}


def choices(res, shapes):
    """The sizes to validate at, best first ({name: value} each): each size of the AIR shrunk
    (shrink: to 8, else 16, 32, 64) so that no dimension of any operator's result that was
    above 1 becomes 1 and the module still builds; shapes() is the frontend's list of those
    results for the module as it stands.  A constant the file computes from others
    (derived_constants) is not shrunk on its own but recomputed from their small values, so
    `HEAD_DIM = DIM // N_HEADS` still holds; the constants it is computed from are shrunk with
    the sizes even when they are none (`height = width = IMG`), and a tuple of them follows
    (`bias_shape = (out_channels, 1, 1)`).  Then (when that fails, or its work is too much for
    the caller) every integer constant of the module and every element of a tuple or list of
    them shrunk together: a constant that is no size of the AIR because it cannot change alone
    (`groups=in_channels` with out_channels == in_channels), sizes written as a list
    (`hidden_layer_sizes = [32768, 32768]`); then every one divided by the same power of two;
    then, from the first choice, each constant alone brought down to 2 where it builds.
    Nothing when every size is 8 or below (the file's own sizes are small)."""
    mod = res.module
    base = own_sizes(res)
    derived = module_derived(mod)
    values = constant_values(mod, derived)
    try:
        ref = shapes()
    except Exception:  # noqa: BLE001
        ref = None
    ints = int_constants(mod)
    first = with_sources(base, ints, derived)
    lists = literal_shapes(mod, derived)
    wide = dict(ints, **first)
    every = dict(wide, **lists)
    seen = []
    for names in [first] + ([every] if len(every) > len(first) else []):
        for target in (8, 16, 32, 64):
            small = follow({n: shrink_value(v, target) for n, v in names.items()}, values, derived)
            if small == {n: values.get(n, names.get(n)) for n in small}:
                if target == 8 and names is first:
                    # nothing to shrink (every size 8 or below, or not divisible so that it
                    # stays 8 or more): the file's own sizes, then only for the work
                    seen.append(small)
                    yield small
                break               # nothing smaller at this target or above
            if builds(mod, small, values, names, shapes, ref):
                if small not in seen:
                    seen.append(small)
                    yield small
                break
    # every constant divided by one power of two where it divides and leaves at least 8 (the
    # largest power that builds): a relation between constants that is no derived constant
    # (LayerNorm(out_channels) over a width that is 2 * width) holds at the quotient
    found = None
    for k in range(1, 40):
        small = follow({n: v for n, v in ((n, halve(v, k)) for n, v in every.items())
                        if v is not None}, values, derived)
        if not small:
            break
        if builds(mod, small, values, every, shapes, ref):
            found = small
    if found and found not in seen:
        seen.append(found)
        yield found
    # from the first choice, each constant alone down to 2 (else its smallest quotient by 2, 3,
    # 5, 7 of at least 2) where the module still builds: a batch of 10 becomes 2 where the
    # spatial sizes cannot shrink (a network's 224 x 224 input, its down-sampling)
    cur = dict(seen[0]) if seen else {}
    for n, v in every.items():
        now = cur.get(n, v)
        two = type(now)(2 for _ in now) if type(now) in (tuple, list) else 2
        for w in [x for k, x in enumerate((two, shrink_value(now, 2))) if x != now and (k == 0 or x != two)]:
            trial = follow(dict(cur, **{n: w}), values, derived)
            if builds(mod, trial, values, every, shapes, ref):
                cur = trial
                break
    if cur and cur not in seen:
        yield cur


def shrink_value(v, target):
    """shrink() of an int, or of each element of a tuple or list of ints."""
    return type(v)(shrink(x, target) for x in v) if type(v) in (tuple, list) else shrink(v, target)


def halve(v, k):
    """v (an int, or a tuple or list of ints) divided by 2**k where that divides and leaves at
    least 8, its other elements as they are; None when nothing changes."""
    def one(x):
        return x >> k if x % (1 << k) == 0 and x >> k >= 8 else x
    w = type(v)(one(x) for x in v) if type(v) in (tuple, list) else one(v)
    return None if w == v else w


def literal_shapes(mod, derived):
    """The module's constants that are tuples or lists of ints, written as literals (not
    derived: `hidden_layer_sizes = [32768, 32768]`, `input_shape = (32768,)`), some element
    above 8."""
    names = {n for n, _ in derived}
    return {k: v for k, v in vars(mod).items()
            if type(v) in (tuple, list) and v and is_shape_value(v) and max(v) > 8
            and k not in names and not k.startswith("_")}


def with_sources(base, ints, derived):
    """base and, transitively, the integer constants (ints) that the derived constants among
    them are computed from."""
    out = dict(base)
    grew = True
    while grew:
        grew = False
        for name, e in derived:
            if name in out:
                for x in ast.walk(e):
                    if isinstance(x, ast.Name) and x.id in ints and x.id not in out:
                        out[x.id] = ints[x.id]
                        grew = True
    return out


def builds(mod, small, values, names, shapes, ref):
    """Whether the module with its constants set to small builds and no result dimension that
    was above 1 (ref) becomes 1; the constants are set back."""
    for n, v in small.items():
        setattr(mod, n, v)
    try:
        got = shapes()
        return ref is None or len(got) != len(ref) or all(
            not (a > 1 and b <= 1) for ra, rb in zip(ref, got) if len(ra) == len(rb)
            for a, b in zip(ra, rb))
    except Exception:  # noqa: BLE001
        return False
    finally:
        for n in small:
            setattr(mod, n, values.get(n, names.get(n)))


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


# --train (train.py): the reference is the model's training step as eager PyTorch runs it:
# forward, the loss, torch.autograd.grad of the parameters that require grad, and the
# optimizer's step (torch.optim with foreach=True and its defaults, from the state the harness
# binds: the AIR's inout PARAM_exp_avg and PARAM_exp_avg_sq are buffers of the wrapper).
TRAIN_ENTRIES = '''


_LOSS, _OPT = %r, %r


_NX = []   # how many of the model's own inputs come before the cotangents


def _loss(out, cot):
    import functools
    import operator
    import torch
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    if _LOSS == "output":
        return outs[0]
    floats = [o for o in outs if isinstance(o, torch.Tensor) and o.is_floating_point()]
    if _LOSS == "cotangent":
        return functools.reduce(operator.add, [(o * c).sum() for o, c in zip(floats, cot)])
    return functools.reduce(operator.add, [o.sum() for o in floats])


class Model(_m.Model):
    def __init__(self, *args, **kwargs):
        import torch
        super().__init__(*args, **kwargs)
        if _OPT == "adamw":
            # the moments are state the step reads: drawn (seeded, the second moment positive)
            # rather than zeros, so that a translation that drops one fails
            g = torch.Generator().manual_seed(20261203)
            for n, p in list(self.named_parameters()):
                if p.requires_grad:
                    k = n.replace(".", "_")
                    self.register_buffer(k + "_exp_avg", ((torch.rand(p.shape, generator=g) - 0.5)
                                                          * 0.1).to(p.dtype))
                    self.register_buffer(k + "_exp_avg_sq", (torch.rand(p.shape, generator=g)
                                                             * 0.01 + 1e-4).to(p.dtype))

    def forward(self, *xs):
        import torch
        named = [(n, p) for n, p in self.named_parameters() if p.requires_grad]
        nx = _NX[0] if _NX else len(xs)
        xs, cot = xs[:nx], xs[nx:]
        with torch.enable_grad():
            loss = _loss(super().forward(*xs), cot)
            grads = torch.autograd.grad(loss, [p for _, p in named], allow_unused=True)
        used = [(n, p, gr) for (n, p), gr in zip(named, grads) if gr is not None]
        if _OPT != "none":
            with torch.no_grad():
                ps = [p for _, p, _ in used]
                opt = (torch.optim.AdamW(ps, foreach=True) if _OPT == "adamw"
                       else torch.optim.SGD(ps, foreach=True))
                for n, p, gr in used:
                    p.grad = gr
                    if _OPT == "adamw":
                        k = n.replace(".", "_")
                        opt.state[p] = {"step": torch.tensor(0.0, dtype=torch.float32),
                                        "exp_avg": getattr(self, k + "_exp_avg"),
                                        "exp_avg_sq": getattr(self, k + "_exp_avg_sq")}
                opt.step()
                for _, p, _ in used:
                    p.grad = None
        return (loss.detach(),) + tuple(gr.detach() for _, _, gr in used)


def get_inputs():
    _sync()
    xs = list(_m.get_inputs())
    _NX[:] = [len(xs)]
    if _LOSS != "cotangent":
        return xs
    # the cotangents: one drawn tensor per floating output, its shape from a run of a copy of
    # the model (on the CPU at these small sizes: on meta, transformers' rotary embedding asks
    # for an autocast dtype of meta, which PyTorch has not), the random state kept as it was
    import torch
    with torch.random.fork_rng(), torch.no_grad():
        m = _m.Model(*get_init_inputs())
        out = m(*[x.clone() if isinstance(x, torch.Tensor) else x for x in xs])
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    g = torch.Generator().manual_seed(20261204)
    return xs + [torch.randn(tuple(o.shape), generator=g).to(o.dtype) for o in outs
                 if isinstance(o, torch.Tensor) and o.is_floating_point()]


def get_init_inputs():
    _sync()
    return _m.get_init_inputs() if hasattr(_m, "get_init_inputs") else []
'''


def wrapper(path, small, frontend="torch", train=None):
    f = FRONTENDS[frontend]
    entries = TRAIN_ENTRIES % (train["loss"], train["optimizer"]) if train else f["entries"]
    return WRAPPER.format(tool=f["tool"], lib=f["lib"], convention=f["convention"], modname=f["modname"],
                          model=os.path.basename(path), dir=os.path.dirname(os.path.abspath(path)),
                          path=os.path.abspath(path), names=list(small), entries=entries,
                          assign="\n".join(f"{k} = {v}" for k, v in small.items()))


def body(text):
    """The program without comments and size declarations: what -D cannot change."""
    keep = []
    for ln in text.splitlines():
        ln = ln.split("#", 1)[0].rstrip()
        if ln and not ln.startswith(("param ", "const ")):
            keep.append(ln)
    return keep


def first_unexplained(mine, theirs, small, names):
    """The index of the first line where the two bodies differ in more than this: where this
    translation names a size, the one at the sizes `small` may write that size's value (at
    small sizes that coincide, SEQ = 8 = HEAD_DIM, the frontend cannot tell which size a
    dimension with no shape rule is, an arange's, and writes the literal; this file's name is
    then what -D changes, as it should).  A literal here that is a value there (a folded
    1/sqrt(d)) still differs.  None when nothing else differs."""
    import re
    vals = {n: small[n] for n in names if type(small.get(n)) is int}
    word = re.compile(r"\b[A-Za-z_]\w*\b")

    def norm(line):
        return word.sub(lambda m: str(vals.get(m.group(0), m.group(0))), line)
    for i, (a, b) in enumerate(zip(mine, theirs)):
        if a != b and norm(a) != norm(b):
            return i
    return None if len(mine) == len(theirs) else min(len(mine), len(theirs))


CHOICES = 4     # the most choices of sizes prepare() translates at to fit the work


def translate_at(path, small, frontend, train=None):
    """The translation of the file at the sizes small, or TranslateError naming them."""
    import importlib
    from .opgraph import TranslateError
    translate_file = importlib.import_module("." + FRONTENDS[frontend]["module"], __package__).translate_file
    sizes = " ".join(f"{k}={v}" for k, v in small.items()) or FRONTENDS[frontend]["own"]
    try:
        return translate_file(path, dict(small), **({"train": train} if train else {}))
    except TranslateError as e:
        raise TranslateError(f"at the validation sizes ({sizes}): {e.message}", e.line, e.status)
    except RecursionError:
        raise TranslateError(f"at the validation sizes ({sizes}): the model is too deep to "
                             f"translate (recursion limit)")
    except Exception as e:  # noqa: BLE001 - a bug in the translator: one located line
        from .source import first_line, model_line
        raise TranslateError(f"internal error in solar translate at the validation sizes "
                             f"({sizes}): {first_line(e)}", model_line(e, path))


def candidates(sizes_module, res, path, fits):
    """The choices of sizes prepare() tries: the frontend's size_choices() (at most CHOICES)
    when the work is to fit, else (or when there is none) its pick_sizes()."""
    import itertools
    if fits and hasattr(sizes_module, "size_choices"):
        got = False
        for small in itertools.islice(sizes_module.size_choices(res, path), CHOICES):
            got = True
            yield small
        if got:
            return
    yield sizes_module.pick_sizes(res, path)


def prepare(path, out, res, work, frontend="torch", fits=None, train=None):
    """The validation's files in `work`: validate.air, the translation at the small sizes, and
    the wrapper (model.py, or fn.py for --jax) of the user's file with its constants at those
    sizes.  fits(AIR file), when given, says whether the work at those sizes is small enough;
    when it is not, the next choice of sizes is tried (choices(), at most CHOICES).  Returns
    (air, ref, how), or raises TranslateError (its message naming the sizes) when the file
    cannot be translated at the small sizes."""
    import importlib
    f = FRONTENDS[frontend]
    sizes_module = importlib.import_module("." + f["sizes_module"], __package__)
    air = os.path.join(work, "validate.air")
    first = None
    from .opgraph import TranslateError
    # a training step with --loss sum is checked against a random cotangent (train.loss_of)
    check = dict(train, loss="cotangent") if train and train["loss"] == "sum" else train
    for small in candidates(sizes_module, res, path, fits):
        try:
            again = translate_at(path, small, frontend, check)
        except TranslateError:
            if first is None:
                raise
            continue        # a later choice that does not translate: the next
        first = first or (small, again)
        with open(air, "w") as fh:
            fh.write(again.text)
        if fits is None or fits(air):
            break
    else:   # every choice is too much: the first (run() says so)
        small, again = first
        with open(air, "w") as fh:
            fh.write(again.text)
    sizes = " ".join(f"{k}={v}" for k, v in small.items()) or f["own"]
    if any(type(v) is int and v > 64 and v == getattr(res.module, k, None) for k, v in small.items()):
        sys.stderr.write(f"{out}: warning: no smaller sizes build {f['what']} without some result "
                         f"dimension becoming 1, so it is validated at its own sizes ({sizes}), "
                         f"which may take long on the CPU; a constant computed from others "
                         f"(HEAD_DIM = DIM // N_HEADS) follows them, any other must divide as "
                         f"the others do (--no-validate skips the validation)\n")
    ref = os.path.join(work, f["ref"])
    with open(ref, "w") as fh:
        fh.write(wrapper(path, small, frontend, check))
    if check is not train:      # -D: the written program against itself at the small sizes
        again = translate_at(path, small, frontend, train)
    mine, theirs = body(res.text), body(again.text)
    own = {n: getattr(res.module, n) for n in res.params
           if type(getattr(res.module, n, None)) is int}
    label = sizes
    if own and all(small.get(n, v) == v for n, v in own.items()):
        # Validated at the file's own sizes, the comparison above compares the file with
        # itself: translate once more with every param doubled (derived constants follow),
        # only to see that -D changes nothing but the sizes (a literal that depends on a size,
        # e.g. a slice start of N - 2 written as 4, shows as a difference).
        derived = derived_constants(path)
        other = follow({n: 2 * v for n, v in own.items()}, constant_values(res.module, derived),
                       derived)
        try:
            twice = translate_at(path, other, frontend, train)
            theirs = body(twice.text)
            label = " ".join(f"{k}={v}" for k, v in other.items())
        except Exception:  # noqa: BLE001 - the model does not build there: nothing to compare
            sys.stderr.write(f"{out}: note: -D on this file is not checked: it does not translate "
                             f"with its params doubled\n")
    k = first_unexplained(mine, theirs, small, res.params + res.consts)
    if k is None and not res.consts:
        how = f"{sizes}: the same program as {out} with -D at those sizes"
    elif k is None:
        how = f"{sizes}; {out} has consts {', '.join(res.consts)}, which only a new translation changes"
    else:
        how = f"{sizes}"
        first = (f"; the first difference: '{mine[k].strip() if k < len(mine) else '(the end)'}' here, "
                 f"'{theirs[k].strip() if k < len(theirs) else '(the end)'}' at those sizes")
        sys.stderr.write(f"{out}: warning: the translation at {label} differs from this one in more "
                         f"than its sizes (a literal of {f['what']} depends on a size, e.g. a scale "
                         f"{f['example']}): -D on this file is not validated; translate again with -D"
                         f"{first}\n")
    return air, ref, how


# The most statement executions (work_of) the generated C of a validation may run (ResNet18 at
# its smallest sizes, 3.66 G, took 20 s on one loaded core: docs/benchmarks.md "Translation
# time"); above it the translation is reported "not validated", with the count (--max-work
# changes it).  8 G keeps ResNet18 and SwinMLP validated; VGG's 155 G stays out.
MAX_WORK = 8 * 10 ** 9
# The same on the GPU (`--backend cuda`): the generated CUDA runs the loops that carry no
# dependence as threads, so the limit is what a serial remainder can take.  VGG19's AdamW step
# at its own sizes (590 G) validated in 248 s on an H100 (docs/translate.md, "KernelBench
# level 3"); 10 T stays well inside the default --timeout at that rate.
MAX_WORK_CUDA = 10 ** 13


def work_of(air):
    """The statement executions of the generated C of the program at air: each statement counted
    once per iteration of the loops around it (an `if` inside them is not subtracted, the C
    evaluates it every time; a bound that depends on an outer iterator is taken at that
    iterator's middle value), so about what the CPU runs (at least `solar count`'s statement
    instances where the bounds are affine in the params alone); read from the text in milliseconds (`solar count` is exact, but takes seconds on
    a network of hundreds of kernels).  None when the text is not what the translator writes."""
    try:
        with open(air) as fh:
            return loop_work(fh.read())
    except (OSError, ValueError, SyntaxError, NameError, TypeError, ZeroDivisionError):
        return None


def top_split(text, sep):
    """text split at each sep outside parentheses and brackets."""
    out, depth, cur, i = [], 0, "", 0
    while i < len(text):
        c = text[i]
        depth += c in "(["
        depth -= c in ")]"
        if depth == 0 and text.startswith(sep, i):
            out.append(cur)
            cur, i = "", i + len(sep)
            continue
        cur += c
        i += 1
    return out + [cur]


def loop_work(text):
    safe = {"__builtins__": {}, "min": min, "max": max}
    env = {}
    total, scopes, head = 0, [(1, env)], ""
    for ln in text.splitlines():
        ln = head + ln.split("#", 1)[0].strip()
        if ln.startswith("for ") and not ln.endswith("{"):
            head = ln + " "     # a header continued on the next line
            continue
        head = ""
        if ln.startswith(("param ", "const ")) and ln.endswith(";"):
            for d in top_split(ln.split(" ", 1)[1][:-1], ","):
                k, v = d.split("=", 1)
                env[k.strip()] = eval(v, safe, dict(env))  # noqa: S307 - AIR integer expressions
        elif ln.startswith("for ") and ln.endswith("{"):
            n, local = scopes[-1][0], dict(scopes[-1][1])
            for part in top_split(ln[4:-1], ","):
                it, rng = part.strip().split(" in ", 1)
                rng, _, step = rng.partition(" step ")
                lo, hi = (eval(x, safe, local) for x in top_split(rng, ".."))  # noqa: S307
                st = eval(step, safe, local) if step else 1  # noqa: S307
                n *= max(0, -(-(hi - lo) // st))
                local[it.strip()] = (lo + max(lo, hi - 1)) // 2
            scopes.append((n, local))
        elif ln.startswith("}"):
            scopes.pop()
            if ln.endswith("{"):
                scopes.append(scopes[-1])
        elif ln.endswith("{"):
            scopes.append(scopes[-1])
        elif ln.endswith(";") and len(scopes) > 1:
            total += scopes[-1][0]
    return total


def count(n):
    """n in words: 950, 12 k, 3.4 M, 150 G."""
    for unit, scale in (("T", 10 ** 12), ("G", 10 ** 9), ("M", 10 ** 6), ("k", 10 ** 3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return str(n)


def run(solar, path, out, res, o, frontend="torch"):
    """Validates the translation: translated again at small sizes (prepare), run by `solar
    validate --backend cpu` (or cuda: o["backend"]) against the user's own code through the
    wrapper."""
    from .opgraph import TranslateError
    f = FRONTENDS[frontend]
    keep = o.get("keep")
    work_dir = keep or tempfile.mkdtemp(prefix="solar-translate-")
    os.makedirs(work_dir, exist_ok=True)
    from .harness_server import env as server_env
    env = dict(os.environ, SOLAR_PYTHON=sys.executable, **f["env"], **server_env(o.get("harness_server")))
    try:
        backend = o.get("backend") or "cpu"
        limit = o.get("max_work") or (MAX_WORK_CUDA if backend == "cuda" else MAX_WORK)
        air, ref, how = prepare(path, out, res, work_dir, frontend,
                                fits=lambda a: (work_of(a) or 0) <= limit, train=o.get("train"))
    except BaseException as e:
        if not keep:
            shutil.rmtree(work_dir, ignore_errors=True)
        if not isinstance(e, TranslateError):
            raise
        where = f"{path}:{e.line}" if e.line else path
        sys.stderr.write(f"{where}: error: {e.message} ({out} is kept, not validated)\n")
        return 1
    work = work_of(air)
    if work is not None and work > limit:
        print(f"{out}: not validated: at the validation sizes ({how.split(':')[0].split(';')[0]}) "
              f"the generated C would run about {count(work)} statement executions, above the limit of "
              f"{count(limit)} (--max-work); {out} passed `solar check` but its numbers were not "
              f"compared with {f['what']} (docs/translate.md, 'Validation'); validate it with "
              f"smaller -D sizes, or raise --max-work")
        if not keep:
            shutil.rmtree(work_dir, ignore_errors=True)
        return 0
    how += f"; about {count(work)} statement executions" if work is not None else ""
    cmd = [solar, "validate", air, "--ref", ref, "--backend", backend, "--timeout",
           str(o.get("timeout", 600))]
    if keep:
        cmd += ["--keep", os.path.join(work_dir, "validate")]
    try:
        with own_limits():   # solar validate runs each step under --timeout
            p = limits.run(cmd, env=env)
    except BaseException:    # an interrupt: nothing of the run stays
        if not keep:
            shutil.rmtree(work_dir, ignore_errors=True)
        raise
    if p.returncode == 0:
        print(f"{out}: validated: PASS (solar validate --backend {backend} {f['against']}at {how})")
        if not keep:
            shutil.rmtree(work_dir, ignore_errors=True)
        return 0
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    if keep is None:
        keepdir = os.path.splitext(out)[0] + ".validate"
        shutil.rmtree(keepdir, ignore_errors=True)
        shutil.move(work_dir, keepdir)
        work_dir = keepdir
    kind = "FAIL" if p.returncode == 1 else f"error (exit {p.returncode})"
    sys.stderr.write(f"{out}: error: validation {kind} ({how}); the files are kept: {out}, {work_dir}\n")
    return 1
