"""Size symbols: the module-level constants a dimension came from, their values, and which of
them must be AIR `const`s.

AIR (docs/air.md section 6) lets a param appear in an index or loop bound only affinely:
`i*S` or `x // S` with a param S is not affine, `i*S` with a const S is.  The emitter writes
every index, bound and condition as a sympy expression; `freeze_nonaffine` walks them and
marks the sizes that appear as a factor of a product of non-constants, or as a divisor, so
the header declares those as `const` (and the rest as `param`, which `-D` can change).
"""
import sympy

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
        return int(sympy.sympify(e).subs({s: self.values[n] for n, s in self.symbols.items()}))

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
            num, den = sympy.fraction(sympy.together(e.args[0]))
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


def fdiv(a, b):
    """floor(a / b) for a positive b."""
    return sympy.floor(sympy.sympify(a) / b)


def cdiv(a, b):
    return sympy.floor((sympy.sympify(a) + b - 1) / b)


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
        parts = ([str(int(c))] if c != 1 else []) + [_atom(f, "mul") for f in sympy.Mul.make_args(rest)]
        return " * ".join(parts)
    if isinstance(e, sympy.floor):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        return _atom(num, "mul") + " // " + _atom(den, "mul")
    if isinstance(e, sympy.Mod):
        return _atom(e.args[0], "mul") + " % " + _atom(e.args[1], "mul")
    if isinstance(e, (sympy.Max, sympy.Min)):
        name = "max" if isinstance(e, sympy.Max) else "min"
        return name + "(" + ", ".join(pr(a) for a in e.args) + ")"
    if isinstance(e, sympy.ceiling):
        return pr(cdiv(*sympy.fraction(sympy.together(e.args[0]))))
    raise ValueError(f"cannot print {e!r} in AIR")


def _atom(e, ctx):
    s = pr(e)
    if isinstance(e, sympy.Add) or (ctx == "mul" and isinstance(e, (sympy.Mul, sympy.floor, sympy.Mod))) \
            or (e.is_Integer and int(e) < 0):
        return "(" + s + ")"
    return s
