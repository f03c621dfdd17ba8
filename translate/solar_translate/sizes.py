"""Size symbols: the module-level constants a dimension came from, their values, and which of
them must be AIR `const`s.

AIR (docs/air.md section 6) lets a param appear in an index or loop bound only affinely:
`i*S` or `x // S` with a param S is not affine, `i*S` with a const S is.  The emitter writes
every index, bound and condition as a sympy expression; `freeze_nonaffine` walks them and
marks the sizes that appear as a factor of a product of non-constants, or as a divisor, so
the header declares those as `const` (and the rest as `param`, which `-D` can change).

Where a size comes from (both frontends): every dimension of a leaf (an input, parameter or
buffer) is traced back to the module-level integer constants (KernelBench's convention) by
building the leaves once more per constant, with that constant doubled (and the tuple
constants computed from it, `bias_shape = (out_channels, 1, 1)`, recomputed), and seeing which
dimensions move (`leaf_sizes`); `fit` turns a dimension and its moves into an expression of the
constants (a product, a quotient, an offset), else a literal.
"""
import ast
import functools
import itertools
import re

import sympy
from sympy.core.function import AppliedUndef

from .opgraph import sym


class Sizes:
    def __init__(self):
        self.values = {}        # name -> int (the module constant's value)
        self.symbols = {}       # name -> sympy Symbol
        self.frozen = set()     # names that must be consts
        self.by_value = {}      # value -> [names], for dimensions with no better origin

    def add(self, name, value):
        if name not in self.symbols:
            self.symbols[name] = sym(name)
            self.values[name] = int(value)
            self.by_value.setdefault(int(value), []).append(name)
        return self.symbols[name]

    def value(self, e):
        e = sympy.sympify(e)
        if e.is_Integer:
            return int(e)
        if e.is_Symbol:
            return self.values[e.name]
        return int(e.xreplace({s: sympy.Integer(self.values[n]) for n, s in self.symbols.items()}))

    def is_size(self, s):
        return isinstance(s, sympy.Symbol) and s.name in self.symbols and self.symbols[s.name] == s

    def used(self):
        return list(self.symbols)

    def freeze_syms(self, e):
        for s in sympy.sympify(e).free_symbols:
            if self.is_size(s):
                self.frozen.add(s.name)

    def freeze_nonaffine(self, e):
        """Marks the sizes that make e non-affine if they were params."""
        e = sympy.sympify(e)
        if e.is_Atom:
            return
        if isinstance(e, sympy.floor):
            num, den = fraction(e.args[0])
            self.freeze_nonaffine(num)
            self.freeze_syms(den)
            return
        if isinstance(e, sympy.Mod):
            self.freeze_nonaffine(e.args[0])
            self.freeze_syms(e.args[1])
            return
        if isinstance(e, sympy.Mul):
            factors = [f for f in e.args if not f.is_Number]
            if len(factors) >= 2:
                pure = [f for f in factors if all(self.is_size(s) for s in f.free_symbols)]
                has_iter = len(pure) < len(factors)
                for k, f in enumerate(pure):
                    if has_iter or k > 0:
                        self.freeze_syms(f)
            for f in factors:
                if isinstance(f, sympy.Pow) and f.exp.is_negative:
                    self.freeze_syms(f.base)
                else:
                    self.freeze_nonaffine(f)
            return
        if isinstance(e, sympy.Pow):
            self.freeze_syms(e)
            return
        for a in e.args:
            self.freeze_nonaffine(a)


def int_constants(mod):
    """The module-level integer constants above 1 of a user's module: the candidate sizes."""
    out = {}
    for k, v in vars(mod).items():
        if type(v) is int and v > 1 and not k.startswith("_") and re.fullmatch(r"[A-Za-z_]\w*", k):
            out[k] = v
    return out


# What a size constant may be computed from: arithmetic on integers and other constants, and
# tuples or lists of such (`bias_shape = (out_channels, 1, 1)`).
ARITH = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Load, ast.Constant, ast.Add,
         ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow, ast.USub, ast.UAdd, ast.Tuple,
         ast.List)


def derived_constants(path):
    """[(NAME, expression)] in file order: the module-level constants that the file computes
    from other names with integer arithmetic (`HEAD_DIM = DIM // N_HEADS`, `HIDDEN = 4 * D`),
    or as a tuple or list of such (`bias_shape = (out_channels, 1, 1)`), by their last
    module-level assignment; a chained assignment (`height = width = H`) gives each of its
    names.  [] when the file cannot be parsed."""
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
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


def is_shape_value(v):
    """An int, or a tuple or list of ints: what a derived constant may hold."""
    return type(v) is int or (type(v) in (tuple, list) and all(type(x) is int for x in v))


def constant_values(mod, derived):
    """The module's integer constants (int_constants) and the current values of its derived
    constants that hold a tuple or list of ints (no size symbol, but it follows them)."""
    out = int_constants(mod)
    for name, _ in derived:
        v = getattr(mod, name, None)
        if name not in out and type(v) in (tuple, list) and is_shape_value(v):
            out[name] = v
    return out


def follow(small, values, derived):
    """small with the derived constants recomputed from it: values holds every constant's
    value as the module stands (constant_values); a derived constant is set to what its
    expression gives at the small values (replacing its own shrunk value), and added to small
    when that differs."""
    env = dict(values, **small)
    out = dict(small)
    for name, e in derived:
        if name not in values:
            continue
        try:
            v = eval(compile(ast.Expression(e), "<size>", "eval"), {"__builtins__": {}}, dict(env))  # noqa: S307 - arithmetic only (ARITH)
        except Exception:  # noqa: BLE001 - a name that is not a constant, a division by zero
            continue
        if is_shape_value(v) and type(v) is type(values[name]) and (v != values[name] or name in small):
            env[name] = out[name] = v
    return out


def module_derived(mod):
    """derived_constants of the module's own file."""
    return derived_constants(getattr(mod, "__file__", None) or "")


def leaf_sizes(mod, base, shapes_at, sizes):
    """For each leaf of base ({key: shape}): a list of sympy expressions of the module's
    constants, one per dimension.  shapes_at() builds the leaves again from mod as it stands
    ({key: shape}; TranslateError when the module does not build), once per constant doubled."""
    from .opgraph import TranslateError
    consts = int_constants(mod)
    # a tuple constant computed from sizes (`bias_shape = (out_channels, 1, 1)`) follows the
    # size doubled, so that the dimension it gives moves with that size (and shrinks with it
    # for the validation); a derived int constant is a size of its own and is doubled alone
    derived = [(n, e) for n, e in module_derived(mod) if n not in consts]
    values = constant_values(mod, derived)
    moved = {}
    for c, v in consts.items():
        changed = follow({c: 2 * v}, values, derived)
        for n, x in changed.items():
            setattr(mod, n, x)
        try:
            moved[c] = shapes_at()
        except TranslateError:
            moved[c] = None
        finally:
            for n in changed:
                setattr(mod, n, values[n])
    exprs = {}
    for key, shape in base.items():
        out = []
        for j, x in enumerate(shape):
            deps = {}
            for c, sh in moved.items():
                y = sh.get(key) if sh is not None else None
                if y is not None and len(y) == len(shape) and y[j] != x:
                    deps[c] = y[j]
            out.append(fit(int(x), deps, consts, sizes))
        exprs[key] = out
    return exprs


def fit(x, deps, consts, sizes):
    """Dimension x as an expression of the constants that moved it (deps: name -> the
    dimension with that constant doubled), else the literal x."""
    if x == 1:
        return sympy.Integer(1)
    if len(deps) == 1:
        (c, y), = deps.items()
        v = consts[c]
        s = sizes.add(c, v)
        if x == v:
            return s
        if y == 2 * x and x % v == 0:
            return (x // v) * s
        if y == 2 * x and v % x == 0:
            return fdiv(s, v // x)
        if y - x == v:
            return s + (x - v)
    if len(deps) == 2:
        (c1, y1), (c2, y2) = deps.items()
        v1, v2 = consts[c1], consts[c2]
        if x == v1 * v2:
            return sizes.add(c1, v1) * sizes.add(c2, v2)
        if x == v1 + v2 and y1 - x == v1 and y2 - x == v2:   # input_size + hidden_size
            return sizes.add(c1, v1) + sizes.add(c2, v2)
        for (a, va), (b, vb) in (((c1, v1), (c2, v2)), ((c2, v2), (c1, v1))):
            if vb and x == va // vb and va % vb == 0:
                return fdiv(sizes.add(a, va), sizes.add(b, vb))
    if len(deps) == 3:
        for (a, b, c) in itertools.permutations(deps):
            va, vb, vc = consts[a], consts[b], consts[c]
            if (va * vb) % vc == 0 and x == va * vb // vc:
                return fdiv(sizes.add(a, va) * sizes.add(b, vb), sizes.add(c, vc))
    return sympy.Integer(x)


@functools.lru_cache(maxsize=1 << 14)
def fraction(e):
    """(numerator, denominator) of e over one common denominator, once per expression: the
    bounds of a deep network's kernels are nests of floors that `together` takes milliseconds
    each to bring over one (DenseNet121: 18 000 calls, docs/benchmarks.md "Translation time")."""
    return sympy.fraction(sympy.together(e))


def fdiv(a, b):
    """floor(a / b) for a positive b."""
    return sympy.floor(sympy.sympify(a) / b)


def cdiv(a, b):
    return sympy.floor((sympy.sympify(a) + b - 1) / b)


# The value of a size expression (set by the emitter).  AIR takes a divisor of // or % in an
# index only as a literal or a const name, so a compound divisor (`K // 2`, all consts) is
# printed as its value.
VALUE_OF = None
FROZEN = None       # name -> whether the size is a const: a compound factor of consts
                    # (`C // 2`) multiplying something else is printed as its value too


def _const_factor(f):
    if f.is_Atom or VALUE_OF is None or FROZEN is None or not f.free_symbols:
        return None
    if all(s.is_positive and FROZEN(s.name) for s in f.free_symbols):
        return str(VALUE_OF(f))
    return None


def _divisor(d):
    if d.is_Integer or d.is_Symbol or VALUE_OF is None:
        return _atom(d, "mul")
    return str(VALUE_OF(d))


def pr(e):
    """An integer sympy expression as AIR text (+ - * // %, min, max)."""
    e = sympy.sympify(e)
    if e.is_Integer:
        return str(int(e))
    if e.is_Symbol:
        return e.name
    if isinstance(e, sympy.Add):
        terms = sorted(e.args, key=lambda t: (t.is_Number, sympy.default_sort_key(t)))
        out = pr(terms[0])
        for t in terms[1:]:
            c, _ = t.as_coeff_Mul()
            if c.is_negative:
                out += " - " + _atom(-t, "add")
            else:
                out += " + " + _atom(t, "add")
        return out
    if isinstance(e, sympy.Mul):
        c, rest = e.as_coeff_Mul()
        if not c.is_Integer:
            num, den = sympy.fraction(e)
            if den != 1:
                raise ValueError(f"non-integer expression {e}")
        if c == -1:
            return "-" + _atom(rest, "mul")
        fs = sympy.Mul.make_args(rest)
        parts = [str(int(c))] if c != 1 else []
        for f in fs:
            v = _const_factor(f) if len(fs) > 1 else None
            parts.append(v if v is not None else _atom(f, "mul"))
        return " * ".join(parts)
    if isinstance(e, sympy.Pow) and e.exp.is_Integer and int(e.exp) > 0:
        return " * ".join([_atom(e.base, "mul")] * int(e.exp))   # B**3: B * B * B
    if isinstance(e, sympy.floor):
        num, den = fraction(e.args[0])
        d = _divisor(den)
        # a divisor of consts whose value is 1 (IMG // 8 at IMG = 8): no division at all
        return pr(num) if d == "1" else _atom(num, "mul") + " // " + d
    if isinstance(e, sympy.Mod):
        d = _divisor(e.args[1])
        return "0" if d == "1" else _atom(e.args[0], "mul") + " % " + d
    if isinstance(e, (sympy.Max, sympy.Min)):
        name = "max" if isinstance(e, sympy.Max) else "min"
        return name + "(" + ", ".join(pr(a) for a in e.args) + ")"
    if isinstance(e, sympy.Abs):
        return f"max({pr(e.args[0])}, {pr(-e.args[0])})"
    if isinstance(e, AppliedUndef):     # a data read (opgraph.data_read): `ids[t]`
        name = e.func.__name__
        return name + ("[" + ", ".join(pr(a) for a in e.args) + "]" if e.args else "")
    if isinstance(e, sympy.ceiling):
        return pr(cdiv(*fraction(e.args[0])))
    raise ValueError(f"cannot print {e!r} in AIR")


def _atom(e, ctx):
    s = pr(e)
    if isinstance(e, sympy.Add) or (ctx == "mul" and isinstance(e, (sympy.Mul, sympy.floor, sympy.Mod))) \
            or (e.is_Integer and int(e) < 0):
        return "(" + s + ")"
    return s
