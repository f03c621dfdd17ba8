"""JAX frontend: a file defining `fn(*inputs)` and `get_inputs()` -> jaxpr -> op graph.

The inputs are never allocated: `jax.eval_shape(get_inputs)` gives their shapes and dtypes
(jax.ShapeDtypeStruct), and `jax.make_jaxpr(fn)` traces fn on them, so a program whose arrays
would take tens of GB translates on a small machine.  Calls (pjit, custom_jvp_call,
custom_vjp_call, closed_call, remat) are inlined: jax.nn functions appear as them.

What "as written" means for JAX (the unfused bound, docs/translate.md): one kernel per
primitive that computes, as JAX's eager mode (op-by-op dispatch) runs it; the layout
primitives (broadcast_in_dim, reshape, transpose, squeeze, rev, a unit-stride or strided
slice, convert_element_type to the same dtype, copy, stop_gradient) are index maps, not
kernels.  Eager JAX materialises some of those (a transpose, a broadcast), so the unfused
bound of the AIR is at most eager's, and jitted code (XLA folds layout into its consumers)
does not beat it for the layout part either.  Python scalars (literals, a broadcast scalar)
are folded into the expressions that use them.

Sizes: every input dimension is traced back to the module-level integer constants by
evaluating get_inputs() once more per constant with that constant doubled (shapes only), as
the PyTorch frontend does; intermediate dimensions take the expression of an operand
dimension with the same value (a symbolic one first), else the one constant of that value,
else a literal.
"""
import inspect
import os
import re

import sympy

from . import jax_index
from .emit_air import LOW, Emitter, flit
from .opgraph import Graph, Op, Tensor, TranslateError, Value
from .sizes import Sizes, fdiv, leaf_sizes, pr
from .source import exec_file, first_line, model_line
from .torch_ops import UNARY, permute_view, reshape_view

JAX_DTYPES = {"float32": "f32", "float64": "f64", "bfloat16": "bf16", "float16": "f16",
              "int64": "i64", "int32": "i32", "int8": "i8", "uint8": "u8", "bool": "bool",
              "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}
CALLS = {"pjit": "jaxpr", "closed_call": "call_jaxpr", "core_call": "call_jaxpr",
         "custom_jvp_call": "call_jaxpr", "custom_vjp_call": "call_jaxpr",
         "custom_vjp_call_jaxpr": "fun_jaxpr", "remat": "jaxpr", "checkpoint": "jaxpr"}
IDENTITY = {"copy", "copy_p", "stop_gradient", "optimization_barrier"}
REDUCE = {"reduce_sum": "sum", "reduce_max": "amax", "reduce_min": "amin", "reduce_prod": "prod"}
WINDOW = {"reduce_window_max": "max", "reduce_window_sum": "sum", "reduce_window_min": "min"}


def _b(f):
    return lambda v, i: f(v[0], v[1])


# jax primitive -> f(args, iters): the AIR value of an elementwise primitive
POINTWISE = {
    "neg": lambda v, i: f"-({v[0]})",
    "logistic": lambda v, i: f"sigmoid({v[0]})",
    "erfc": lambda v, i: f"1.0 - erf({v[0]})",
    "is_finite": lambda v, i: f"abs({v[0]}) < inf",
    "tan": lambda v, i: f"sin({v[0]}) / cos({v[0]})",
    "add": _b(lambda a, b: f"{a} + {b}"),
    "sub": _b(lambda a, b: f"{a} - ({b})"),
    "mul": _b(lambda a, b: f"({a}) * ({b})"),
    "max": _b(lambda a, b: f"max({a}, {b})"),
    "min": _b(lambda a, b: f"min({a}, {b})"),
    "pow": _b(lambda a, b: f"pow({a}, {b})"),
    "eq": _b(lambda a, b: f"{a} == {b}"),
    "ne": _b(lambda a, b: f"{a} != {b}"),
    "lt": _b(lambda a, b: f"{a} < {b}"),
    "le": _b(lambda a, b: f"{a} <= {b}"),
    "gt": _b(lambda a, b: f"{a} > {b}"),
    "ge": _b(lambda a, b: f"{a} >= {b}"),
    "atan2": None,
}
for _n in ("exp", "log", "tanh", "sqrt", "rsqrt", "abs", "erf", "sin", "cos", "sign", "floor",
           "ceil", "log1p", "expm1", "exp2", "square"):
    POINTWISE[_n] = (lambda g: lambda v, i: g(v[0]))(UNARY[_n])
del POINTWISE["atan2"]


class JaxFrontend:
    """Walks a jaxpr and builds the op graph (opgraph.py) that emit_air.py writes."""

    def __init__(self, path, mod, sizes, leaf):
        self.path, self.mod, self.sizes, self.leaf = path, mod, sizes, leaf
        self.g = Graph(sizes)
        self.g.source = os.path.basename(path)
        self.env, self.knames, self.tnames = {}, {}, set()
        self.tf32 = False
        self.counts = {}     # reduce output tensor -> the number of elements it reduced
        try:
            self.lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        except OSError:
            self.lines = []

    # -- names, places, shapes (kname and tname as the PyTorch frontend's) ---------------
    from .torch_frontend import Frontend as _F
    kname, tname = _F.kname, _F.tname
    del _F

    def where(self, eqn):
        from jax._src import source_info_util as siu
        real = os.path.realpath(self.path)
        line = None
        for fr in siu.user_frames(eqn.source_info):
            if os.path.realpath(fr.file_name) == real:
                line = fr.start_line
                break
        stack = str(eqn.source_info.name_stack or "")
        return line, ".".join(p.strip("_") for p in re.split(r"[/.]", stack) if p.strip("_"))

    def err(self, eqn, msg):
        return TranslateError(msg, self.where(eqn)[0])

    def dtype(self, eqn, aval):
        dt = JAX_DTYPES.get(str(aval.dtype))
        if dt is None:
            raise self.err(eqn, f"unsupported dtype {aval.dtype} (of primitive {eqn.primitive.name})")
        return dt

    def sym_by_value(self, v, cands=()):
        if v == 1:
            return sympy.Integer(1)
        for c in sorted(cands, key=lambda e: sympy.sympify(e).is_Integer):
            if self.sizes.value(c) == v:
                return sympy.sympify(c)
        names = self.sizes.by_value.get(v, [])
        if len(names) == 1:
            return self.sizes.symbols[names[0]]
        return sympy.Integer(v)

    def shape_of(self, aval, vals):
        """aval's shape as size expressions: each dim from an operand's dim of that value
        (aligned from the right; a symbolic one first), else by value."""
        shape = [int(s) for s in aval.shape]
        r = len(shape)
        out = []
        for j, v in enumerate(shape):
            cands = []
            for x in vals:
                if isinstance(x, Value):
                    jj = len(x.shape) - (r - j)
                    if 0 <= jj < len(x.shape):
                        cands.append(x.shape[jj])
            cands += [s for x in vals if isinstance(x, Value) for s in x.shape]
            out.append(self.sym_by_value(v, cands))
        return out

    def kernel(self, eqn, kind, ins, shape, attrs=None, dtype=None, out_view=None):
        line, path = self.where(eqn)
        prim = eqn.primitive.name
        name = self.kname(path, prim)
        t = Tensor(self.tname(name), shape, dtype or self.dtype(eqn, eqn.outvars[0].aval), "tmp")
        self.g.add_tensor(t)
        val = Value(shape, t.dtype, tensor=t)
        attrs = dict(attrs or {})
        if line and 0 < line <= len(self.lines):
            attrs["src"] = self.lines[line - 1].strip()
        out = out_view(val) if out_view else val
        self.g.ops.append(Op(kind, name, ins, out, attrs, path, line, aten=f"jax.lax.{prim}"))
        return val

    # -- the jaxpr ---------------------------------------------------------------------------
    def read(self, x):
        from jax.extend.core import Literal
        if isinstance(x, Literal):
            v = x.val
            return v.item() if hasattr(v, "item") else v
        return self.env[x]

    def run(self, closed, names):
        jaxpr = closed.jaxpr
        for k, (v, nm) in enumerate(zip(jaxpr.invars, names)):
            shape = self.leaf.get(k) or [sympy.Integer(int(s)) for s in v.aval.shape]
            t = Tensor(self.tname(nm), shape, JAX_DTYPES.get(str(v.aval.dtype), ""), "in")
            if not t.dtype:
                raise TranslateError(f"input {k} ('{nm}') has the unsupported dtype {v.aval.dtype}")
            self.g.add_tensor(t)
            self.env[v] = Value(t.shape, t.dtype, tensor=t)
        self.consts(jaxpr.constvars, closed.consts)
        self.eqns(jaxpr.eqns)
        outs = []
        for k, v in enumerate(jaxpr.outvars):
            x = self.read(v)
            if not isinstance(x, Value):
                raise TranslateError(f"output {k} of fn is the constant {x!r}, not an array "
                                     "that depends on the inputs")
            outs.append(_Var(x))
        from .torch_frontend import Frontend
        self.env.update({o: o.value for o in outs})
        Frontend.outputs(self, outs)
        jax_index.prune(self)
        Frontend.sort_tensors(self)
        return self.g

    def consts(self, vars_, vals):
        import numpy as np
        for v, c in zip(vars_, vals):
            a = np.asarray(c)
            if a.size != 1:
                raise TranslateError(f"fn captures a constant array of shape {list(a.shape)} "
                                     "(AIR has no constant arrays: pass it as an input from "
                                     "get_inputs())")
            self.env[v] = a.reshape(()).item()

    def eqns(self, eqns):
        for eqn in eqns:
            name = eqn.primitive.name
            if name in CALLS:
                sub = eqn.params.get(CALLS[name])
                inner = getattr(sub, "jaxpr", sub)
                consts = getattr(sub, "consts", [])
                self.consts(inner.constvars, consts)
                for iv, x in zip(inner.invars, eqn.invars):
                    self.env[iv] = self.read(x)
                self.eqns(inner.eqns)
                for ov, x in zip(eqn.outvars, inner.outvars):
                    self.env[ov] = self.read(x)
                continue
            ins = [self.read(x) for x in eqn.invars]
            if not any(isinstance(x, Value) for x in ins) and name not in ("iota",):
                self.env[eqn.outvars[0]] = self.fold(eqn, ins)
                continue
            r = self.primitive(eqn, name, ins)
            outs = r if isinstance(r, list) else [r]
            for ov, x in zip(eqn.outvars, outs):
                self.env[ov] = x

    def fold(self, eqn, ins):
        """A primitive of Python scalars only: evaluated now (a literal of the AIR)."""
        import jax.numpy as jnp
        if len(eqn.outvars) != 1 or eqn.outvars[0].aval.shape not in ((),) and \
                eqn.primitive.name != "broadcast_in_dim":
            raise self.err(eqn, f"unsupported primitive {eqn.primitive.name} (on constants only, "
                           "with an array result)")
        if eqn.primitive.name == "broadcast_in_dim":
            return ins[0]
        r = eqn.primitive.bind(*[jnp.asarray(x) for x in ins], **eqn.params)
        return r.item()

    # -- primitives ------------------------------------------------------------------------
    def primitive(self, eqn, name, ins):
        aval = eqn.outvars[0].aval
        p = eqn.params
        x = ins[0] if ins else None
        if name in IDENTITY:
            return ins if len(ins) > 1 else x
        if name == "convert_element_type":
            if self.dtype(eqn, aval) == x.dtype:
                return x
            return self.kernel(eqn, "pointwise", [x], list(x.shape), {"f": lambda v, i: v[0]})
        if name == "broadcast_in_dim":
            return self.broadcast(x, aval, p["broadcast_dimensions"])
        if name == "reshape":
            if p.get("dimensions"):
                raise self.err(eqn, "unsupported primitive reshape with dimensions")
            return reshape_view(self, x, [int(s) for s in aval.shape])
        if name == "transpose":
            return permute_view(x, list(p["permutation"]))
        if name == "squeeze":
            return self.squeeze(x, [d % len(x.shape) for d in p["dimensions"]])
        if name == "rev":
            dims = set(p["dimensions"])
            sh = list(x.shape)
            return Value(sh, x.dtype, base=x, fn=lambda idx: [sh[d] - 1 - e if d in dims else e
                                                              for d, e in enumerate(idx)])
        if name == "slice":
            return self.slice(x, p["start_indices"], p["limit_indices"], p.get("strides"))
        if name == "split":
            return self.split(x, p["sizes"], p["axis"])
        if name in POINTWISE or name in ("integer_pow", "select_n", "clamp", "div", "rem", "not",
                                         "and", "or", "iota"):
            return self.pointwise(eqn, name, ins, aval)
        if name in REDUCE:
            axes = sorted(p["axes"])
            shape = [x.shape[d] for d in range(len(x.shape)) if d not in axes]
            r = self.kernel(eqn, "reduce", [x], shape, {"shape": list(x.shape), "dims": axes,
                                                        "keepdim": False, "op": REDUCE[name]})
            self.counts[r.tensor.name] = sympy.Mul(*[x.shape[d] for d in axes])
            return r
        if name == "cumsum":
            if p.get("reverse"):
                raise self.err(eqn, "unsupported primitive cumsum with reverse=True")
            return self.kernel(eqn, "cumsum", [x], list(x.shape), {"dim": p["axis"]})
        if name == "dot_general":
            return self.dot_general(eqn, ins, aval)
        if name == "conv_general_dilated":
            return self.conv(eqn, ins, aval)
        if name in WINDOW:
            return self.window(eqn, name, x, aval)
        if name == "concatenate":
            d = p["dimension"]
            xs = [self.materialise(eqn, v, aval, d) for v in ins]
            shape = list(xs[0].shape)
            shape[d] = sum((v.shape[d] for v in xs), sympy.Integer(0))
            return self.kernel(eqn, "cat", xs, shape, {"dim": d})
        if name == "pad":
            return self.pad(eqn, ins, aval)
        if name == "gather":
            return jax_index.gather(self, eqn, ins, aval)
        if name in jax_index.SCATTERS:
            return jax_index.scatter(self, eqn, name, ins, aval)
        if name == "top_k":
            return jax_index.top_k(self, eqn, ins, aval)
        if name in ("sort", "argsort"):
            raise self.err(eqn, f"unsupported primitive {name}: a sort is not translated yet "
                           "(docs/air-1.1-indexing.md, 4.6); top_k with k <= 4 is")
        raise self.err(eqn, f"unsupported primitive {name}")

    def materialise(self, eqn, v, aval, d):
        if isinstance(v, Value):
            return v
        raise self.err(eqn, f"unsupported primitive {eqn.primitive.name} of a constant operand")

    def broadcast(self, x, aval, bdims):
        if not isinstance(x, Value):
            return x
        tgt = [int(s) for s in aval.shape]
        shape = []
        for j, v in enumerate(tgt):
            if j in bdims and self.sizes.value(x.shape[list(bdims).index(j)]) == v:
                shape.append(x.shape[list(bdims).index(j)])
            else:
                shape.append(self.sym_by_value(v))
        keep = [self.sizes.value(x.shape[k]) == tgt[j] for k, j in enumerate(bdims)]

        def fn(idx):
            return [idx[j] if keep[k] else sympy.Integer(0) for k, j in enumerate(bdims)]
        return Value(shape, x.dtype, base=x, fn=fn)

    def squeeze(self, x, dims):
        r = len(x.shape)
        keep = [d for d in range(r) if d not in dims]

        def fn(idx):
            out = [sympy.Integer(0)] * r
            for k, d in enumerate(keep):
                out[d] = idx[k]
            return out
        return Value([x.shape[d] for d in keep], x.dtype, base=x, fn=fn,
                     inv=lambda b: [b[d] for d in keep])

    def slice(self, x, start, limit, strides):
        strides = strides or [1] * len(start)
        shape, full = [], True
        for d, (a, b, s) in enumerate(zip(start, limit, strides)):
            size = self.sizes.value(x.shape[d])
            if a == 0 and b == size and s == 1:
                shape.append(x.shape[d])
                continue
            full = False
            if s == 1:   # the extent as the dim less what is cut at both ends: stays symbolic
                shape.append(sympy.expand(x.shape[d] - a - (size - b)))
            else:
                self.sizes.freeze_syms(x.shape[d])
                shape.append(sympy.Integer(-(-(b - a) // s)))
        if full:
            return x
        return Value(shape, x.dtype, base=x,
                     fn=lambda idx: [e * s + a for e, a, s in zip(idx, start, strides)])

    def split(self, x, sizes, axis):
        outs, off = [], 0
        self.sizes.freeze_syms(x.shape[axis])
        for n in sizes:
            o = off
            shape = list(x.shape)
            shape[axis] = sympy.Integer(n)
            outs.append(Value(shape, x.dtype, base=x, fn=lambda idx, o=o: idx[:axis] + [idx[axis] + o] + idx[axis + 1:]))
            off += n
        return outs

    def pointwise(self, eqn, name, ins, aval):
        p = eqn.params
        dt = self.dtype(eqn, aval)
        intty = dt not in ("f32", "f64") and dt not in LOW
        if name == "iota":
            d = p["dimension"]
            shape = self.shape_of(aval, [])
            # "affine": an index read of it is the iterator (jax_index: x[jnp.arange(N), t])
            return self.kernel(eqn, "pointwise", [], shape, {"f": lambda v, i: pr(i[d]),
                                                             "affine": lambda ix: ix[d]})
        if name == "integer_pow":
            y = p["y"]
            f = (lambda v, i: " * ".join([f"({v[0]})"] * abs(y)) if y else "1.0")
            if y < 0:
                f = (lambda g: lambda v, i: f"1.0 / ({g(v, i)})")(f)
        elif name == "select_n":
            ncase = len(ins) - 1
            pred_bool = isinstance(ins[0], Value) and ins[0].dtype == "bool" or isinstance(ins[0], bool)

            def f(v, i):
                if ncase == 2 and pred_bool:
                    return f"select({v[0]}, {v[2]}, {v[1]})"
                e = v[ncase]
                for k in range(ncase - 2, -1, -1):
                    e = f"select({v[0]} == {k}, {v[k + 1]}, {e})"
                return e
        elif name == "clamp":      # clamp(lo, x, hi)
            f = lambda v, i: f"min(max({v[1]}, {v[0]}), {v[2]})"
        elif name == "div":
            if intty:   # integer division truncates toward zero; AIR's // floors
                f = lambda v, i: (f"select(({v[0]} < 0) != ({v[1]} < 0) and {v[0]} % {v[1]} != 0, "
                                  f"{v[0]} // {v[1]} + 1, {v[0]} // {v[1]})")
            else:
                f = lambda v, i: f"({v[0]}) / ({v[1]})"
        elif name == "rem":          # C fmod: the sign of the dividend; AIR's % takes the divisor's
            f = lambda v, i: (f"select({v[0]} % {v[1]} != 0 and ({v[0]} < 0) != ({v[1]} < 0), "
                              f"{v[0]} % {v[1]} - ({v[1]}), {v[0]} % {v[1]})")
        elif name in ("not", "and", "or"):
            if dt != "bool":
                raise self.err(eqn, f"unsupported primitive {name} on {dt} (bitwise)")
            f = {"not": lambda v, i: f"not ({v[0]} != 0)",
                 "and": lambda v, i: f"({v[0]} != 0) and ({v[1]} != 0)",
                 "or": lambda v, i: f"({v[0]} != 0) or ({v[1]} != 0)"}[name]
        else:
            f = POINTWISE[name]
        lits = [flit(v) if isinstance(v, (int, float)) else v for v in ins]
        if name == "div" and isinstance(ins[0], Value) and isinstance(ins[1], float):
            # jnp.mean: a sum divided by its element count, a literal at trace time; written as
            # the sizes' product so that -D keeps it right
            c = self.counts.get(ins[0].root().tensor.name)
            if c is not None and not c.is_Integer and self.sizes.value(c) == ins[1]:
                lits[1] = pr(c)
        vals = [v for v in ins if isinstance(v, Value)]
        pos = [k for k, v in enumerate(ins) if isinstance(v, Value)]

        def g(v, i, f=f, lits=lits, pos=pos):
            a = list(lits)
            for k, s in zip(pos, v):
                a[k] = s
            return f(a, i)
        r = self.kernel(eqn, "pointwise", vals, self.shape_of(aval, vals), {"f": g})
        jax_index.note_normalised(self, name, ins, r)
        return r

    def dot_general(self, eqn, ins, aval):
        a, b = ins
        (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
        shape = [a.shape[d] for d in lb]
        shape += [a.shape[d] for d in range(len(a.shape)) if d not in lc and d not in lb]
        shape += [b.shape[d] for d in range(len(b.shape)) if d not in rc and d not in rb]
        return self.kernel(eqn, "dot", [a, b], shape, {"dims": ((lc, rc), (lb, rb)),
                                                       "math": self.math(eqn, a)})

    def math(self, eqn, x):
        """JAX's f32 contractions on NVIDIA GPUs run in TF32 at the default precision."""
        if x.dtype != "f32":
            return None
        import jax
        prec = eqn.params.get("precision")
        names = [str(q).upper() for q in (prec if isinstance(prec, (tuple, list)) else [prec])]
        cfg = str(jax.config.jax_default_matmul_precision or "").lower()
        if any("HIGHEST" in q for q in names) or cfg in ("highest", "float32"):
            return "strict"
        return "tf32"

    def conv(self, eqn, ins, aval):
        p = eqn.params
        x, w = ins
        dn = p["dimension_numbers"]
        if p.get("batch_group_count", 1) != 1:
            raise self.err(eqn, "unsupported primitive conv_general_dilated with batch_group_count > 1")
        xv = permute_view(x, list(dn.lhs_spec))          # (N, C, spatial...)
        wv = permute_view(w, list(dn.rhs_spec))          # (O, I, spatial...)
        nsp = len(xv.shape) - 2
        st, pads = list(p["window_strides"]), [tuple(q) for q in p["padding"]]
        ld, rd = list(p["lhs_dilation"]), list(p["rhs_dilation"])
        G = p["feature_group_count"]
        oshape = [int(s) for s in aval.shape]
        canon = [xv.shape[0], wv.shape[0]]
        for j in range(nsp):
            H, K = xv.shape[2 + j], wv.shape[2 + j]
            lo, hi = int(pads[j][0]), int(pads[j][1])
            e = fdiv((H - 1) * ld[j] + 1 + lo + hi - rd[j] * (K - 1) - 1, st[j]) + 1
            if self.sizes.value(e) != oshape[dn.out_spec[2 + j]]:
                e = sympy.Integer(oshape[dn.out_spec[2 + j]])
                self.sizes.freeze_syms(H)
            canon.append(sympy.simplify(e))
        shape = [None] * len(canon)        # the output in its own layout
        for j, d in enumerate(dn.out_spec):
            shape[d] = canon[j]
        spec = list(dn.out_spec)
        return self.kernel(eqn, "jconv", [xv, wv], shape,
                           {"stride": st, "pads": pads, "lhs_dilation": ld, "rhs_dilation": rd,
                            "groups": G, "math": self.math(eqn, x)},
                           out_view=lambda v: permute_view(v, spec))

    def window(self, eqn, name, x, aval):
        p = eqn.params
        if any(d != 1 for d in p["base_dilation"]):
            raise self.err(eqn, f"unsupported primitive {name} with base_dilation")
        wd, st = list(p["window_dimensions"]), list(p["window_strides"])
        dl, pads = list(p["window_dilation"]), [tuple(int(v) for v in q) for q in p["padding"]]
        oshape = [int(s) for s in aval.shape]
        shape = []
        for j, H in enumerate(x.shape):
            lo, hi = pads[j]
            e = fdiv(H + lo + hi - dl[j] * (wd[j] - 1) - 1, st[j]) + 1
            if wd[j] == 1 and st[j] == 1 and lo == hi == 0:
                e = H
            elif self.sizes.value(e) != oshape[j]:
                e = sympy.Integer(oshape[j])
                self.sizes.freeze_syms(H)
            shape.append(sympy.simplify(e))
        return self.kernel(eqn, "window", [x], shape, {"kind": WINDOW[name], "window": wd,
                                                       "stride": st, "dilation": dl, "pads": pads})

    def pad(self, eqn, ins, aval):
        x, value = ins
        if isinstance(value, Value):
            raise self.err(eqn, "unsupported primitive pad with a padding value computed from the inputs")
        cfg = [tuple(int(v) for v in q) for q in eqn.params["padding_config"]]
        if any(c[2] != 0 or c[0] < 0 or c[1] < 0 for c in cfg):
            raise self.err(eqn, "unsupported primitive pad with interior or negative padding")
        r = len(cfg)
        pads = []
        for j in range(r):
            pads += [cfg[r - 1 - j][0], cfg[r - 1 - j][1]]
        shape = [x.shape[d] + cfg[d][0] + cfg[d][1] for d in range(r)]
        return self.kernel(eqn, "pad", [x], shape, {"pads": pads, "value": float(value)})


class _Var:
    """A jaxpr output seen as the PyTorch frontend's output node (Frontend.outputs)."""
    op = "output"

    def __init__(self, value):
        self.value = value


class JaxEmitter(Emitter):
    """emit_air's Emitter with the kernels whose JAX semantics differ from PyTorch's."""

    def k_dot(self, k, op):
        """dot_general: out[batch.., lhs free.., rhs free..] = sum over the contracting dims."""
        a, b, out = op.ins[0], op.ins[1], op.out
        (lc, rc), (lb, rb) = op.attrs["dims"]
        its = k.iters(len(out.shape))
        red = k.iters(len(lc), "r")
        n = k.open_for(its, [(0, s) for s in out.shape])
        ia, ib = [None] * len(a.shape), [None] * len(b.shape)
        for j, (x, y) in enumerate(zip(lb, rb)):
            ia[x], ib[y] = its[j], its[j]
        q = len(lb)
        for idx, v, c, bt in ((ia, a, lc, lb), (ib, b, rc, rb)):
            for d in range(len(v.shape)):
                if d not in c and d not in bt:
                    idx[d] = its[q]
                    q += 1
        for j, (x, y) in enumerate(zip(lc, rc)):
            ia[x], ib[y] = red[j], red[j]
        acc_t, acc = self.accumulator(k, op, its)
        k.assign(acc, "=", "0")
        nr = k.open_for(red, [(0, a.shape[x]) for x in lc])
        k.assign(acc, "+=", f"{k.ref(a, ia)} * {k.ref(b, ib)}")
        k.close(nr)
        if acc_t is not None:
            k.assign(k.ref(out, its), "=", acc)
        k.close(n)

    def k_jconv(self, k, op):
        """conv_general_dilated over canonical (N, C, spatial) / (O, I, spatial) views: input
        dilation (lhs_dilation, a transposed convolution) as a divisibility condition, padding
        as bounds conditions, so padded or dilation-hole elements are never read."""
        x, w, out = op.ins[0], op.ins[1], op.out
        st, pads = op.attrs["stride"], op.attrs["pads"]
        ld, rd, G = op.attrs["lhs_dilation"], op.attrs["rhs_dilation"], op.attrs["groups"]
        nsp = len(x.shape) - 2
        its = k.iters(2 + nsp)
        n_it, o_it, s = its[0], its[1], its[2:]
        (c,) = k.iters(1, "c")
        r = k.iters(nsp, "r")
        cg = w.shape[1]
        if G > 1:
            og = self.sizes.value(w.shape[0]) // G
            for e in (x.shape[1], w.shape[0], w.shape[1]):
                self.sizes.freeze_syms(e)
            cin = fdiv(o_it, og) * self.sizes.value(cg) + c
        else:
            cin = c
        n = k.open_for(its, [(0, e) for e in out.shape])
        acc_t = None
        if out.dtype in LOW:
            acc_t = self.new_tmp(op.name + "_acc", out.shape, "f32", "the accumulator (f32, rounded once)")
            acc = k.tref(acc_t, its)
        else:
            acc = k.ref(out, its)
        k.assign(acc, "=", "0")
        k.open_for([c] + r, [(0, cg)] + [(0, w.shape[2 + j]) for j in range(nsp)])
        conds, xi = [], []
        for j in range(nsp):
            e = s[j] * st[j] + r[j] * rd[j] - pads[j][0]
            H = x.shape[2 + j]
            if ld[j] > 1:
                conds += [(e, ">=", 0), (sympy.Mod(e, ld[j]), "==", 0), (fdiv(e, ld[j]), "<", H)]
                xi.append(fdiv(e, ld[j]))
            else:
                if pads[j][0] or pads[j][1]:
                    conds += [(e, ">=", 0), (e, "<", H)]
                xi.append(e)
        nif = k.open_if(conds)
        k.assign(acc, "+=", f"{k.ref(x, [n_it, cin] + xi)} * {k.ref(w, [o_it, c] + r)}")
        k.close(nif + 1)
        if acc_t is not None:
            k.assign(k.ref(out, its), "=", acc)
        k.close(n)

    def k_window(self, k, op):
        """reduce_window max / sum / min: padding cells hold the init value, so they are skipped."""
        x, out, kind = op.ins[0], op.out, op.attrs["kind"]
        wd, st, dl, pads = (op.attrs[a] for a in ("window", "stride", "dilation", "pads"))
        its = k.iters(len(out.shape))
        wdims = [j for j in range(len(wd)) if wd[j] > 1]
        r = dict(zip(wdims, k.iters(len(wdims), "r")))
        n = k.open_for(its, [(0, e) for e in out.shape])
        if kind == "sum" and out.dtype in LOW:
            acc = k.tref(self.new_tmp(op.name + "_acc", out.shape, "f32", "window sum"), its)
        else:
            acc = k.ref(out, its)
        k.assign(acc, "=", {"max": "-inf", "min": "inf", "sum": "0"}[kind])
        nr = k.open_for([r[j] for j in wdims], [(0, wd[j]) for j in wdims])
        conds, xi = [], []
        for j in range(len(wd)):
            e = its[j] * st[j] + (r[j] * dl[j] if j in r else 0) - pads[j][0]
            if pads[j][0] or pads[j][1]:
                conds += [(e, ">=", 0), (e, "<", x.shape[j])]
            xi.append(e)
        nif = k.open_if(conds)
        k.assign(acc, {"max": "max=", "min": "min=", "sum": "+="}[kind], k.ref(x, xi))
        k.close(nif + nr)
        if acc != k.ref(out, its):
            k.assign(k.ref(out, its), "=", acc)
        k.close(n)


# ------------------------------------------------------------------------------------------
# the file


def load(path, defines):
    """The file executed as a module (every error of the user's file located), -D applied."""
    mod = exec_file(path, "_solar_jax_", "file")
    for k, v in defines.items():
        setattr(mod, k, v)
    if not callable(getattr(mod, "fn", None)):
        raise TranslateError("no function fn (a --jax file defines fn(*inputs) and get_inputs(), "
                             "which returns fn's arguments as jax.numpy arrays)")
    if not callable(getattr(mod, "get_inputs", None)):
        raise TranslateError("no function get_inputs() (it returns the arguments of fn)")
    return mod


def input_shapes(jax, mod, path):
    """The ShapeDtypeStructs of get_inputs(), computed abstractly (nothing is allocated)."""
    try:
        args = jax.eval_shape(lambda: list(_as_list(mod.get_inputs())))
    except TranslateError:
        raise
    except Exception as e:  # noqa: BLE001
        raise TranslateError(f"get_inputs() raised {first_line(e)}", model_line(e, path))
    for k, a in enumerate(args):
        if not hasattr(a, "shape"):
            raise TranslateError(f"get_inputs() item {k} is {type(a).__name__}, not an array")
    return args


def _as_list(x):
    if not isinstance(x, (list, tuple)):
        raise TranslateError(f"get_inputs() returned {type(x).__name__}, not a list")
    return x


def translate_jax(path, defines):
    """(Graph, header notes) of fn in the file at path."""
    import jax
    mod = load(path, defines)
    args = input_shapes(jax, mod, path)
    sizes = Sizes()
    base = {k: tuple(int(x) for x in a.shape) for k, a in enumerate(args)}
    leaf = leaf_sizes(mod, base, lambda: dict(enumerate(tuple(a.shape) for a in input_shapes(jax, mod, path))),
                      sizes)
    try:
        closed = jax.make_jaxpr(mod.fn)(*args)
    except Exception as e:  # noqa: BLE001
        raise TranslateError(f"jax.make_jaxpr(fn) failed: {first_line(e)}", model_line(e, path))
    try:
        names = list(inspect.signature(mod.fn).parameters)
    except (TypeError, ValueError):
        names = []
    names = (names + [f"x{k}" for k in range(len(names), len(args))])[:len(args)]
    if len(closed.jaxpr.invars) != len(args):
        raise TranslateError("get_inputs() items must be arrays (no nested lists or dicts)")
    fe = JaxFrontend(path, mod, sizes, leaf)
    g = fe.run(closed, names)
    g.notes[:0] = [f"{os.path.basename(path)}, translated by solar translate --jax "
                   f"(jax.make_jaxpr, JAX {jax.__version__}).",
                   "One kernel per primitive as eager JAX dispatches it; layout primitives are "
                   "index maps; f32 contractions are tf32 (JAX's default precision on GPUs).", ""]
    return g, mod


def translate_file(path, defines):
    from .translate import Result
    g, mod = translate_jax(path, defines)
    text, params, consts = JaxEmitter(g).emit()
    return Result(text, params, consts, g, g.sizes, mod)


def available():
    try:
        import jax  # noqa: F401
        import sympy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        import sys
        sys.stderr.write(f"solar translate: error: JAX is not available to {sys.executable} "
                         f"({type(e).__name__}: {e}); run `make venv` (build/venv) or set "
                         "SOLAR_PYTHON to a Python with jax\n")
        return False
    return True


# ------------------------------------------------------------------------------------------
# validation: the translation at small sizes against fn itself (validate/harness.py runs fn)

def eqn_shapes(jax, mod, path):
    args = input_shapes(jax, mod, path)
    out = []

    def walk(jaxpr):
        for e in jaxpr.eqns:
            sub = e.params.get(CALLS.get(e.primitive.name, ""))
            if sub is not None:
                walk(getattr(sub, "jaxpr", sub))
            out.extend(tuple(int(s) for s in v.aval.shape) for v in e.outvars)
    walk(jax.make_jaxpr(mod.fn)(*args).jaxpr)
    return out


def pick_sizes(res, path):
    """validate.pick with the shapes of every primitive's result."""
    import jax
    from .validate import pick
    return pick(res, lambda: eqn_shapes(jax, res.module, path))


def run(solar, path, out, res, o):
    """Validates the translation against fn itself (validate.run: through a wrapper that sets
    the module constants at small sizes)."""
    from .validate import run as validate_run
    return validate_run(solar, path, out, res, o, frontend="jax")
