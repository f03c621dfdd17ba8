"""The ATen operators `solar translate` understands, and how each maps onto the op graph.

handle(fe, node) returns what the node's result is in the op graph: a Value (a kernel's output,
or a view: an index map over another Value), a list of them (split, chunk, unbind), or a
Python scalar.  Which handler serves a call is a table (HANDLERS, built from FAMILIES at the
end of this file) from the ATen name, and for the few names whose handler depends on the call's
arguments, the ordered tests of GUARDED.  The table in docs/translate.md lists every operator here.
"""
import functools
import math
import operator

import sympy

from . import torch_backward, torch_index
from .emit_air import flit
from .library_math import library_math
from .opgraph import Tensor, TranslateError, Value
from .sizes import cdiv, fdiv, pr

# --------------------------------------------------------------------------------------------
# pointwise operators: name -> f(args, iters) building the AIR value expression


def _clamp(a, lo, hi):
    if lo is not None:
        a = f"max({a}, {lo})"
    if hi is not None:
        a = f"min({a}, {hi})"
    return a


def _gelu(a, approximate="none"):
    if approximate == "tanh":
        return f"0.5 * {a} * (1.0 + tanh(0.7978845608028654 * ({a} + 0.044715 * {a} * {a} * {a})))"
    return f"0.5 * {a} * (1.0 + erf({a} * 0.7071067811865476))"


def _s(x):
    return flit(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


UNARY = {
    "relu": lambda a: f"max({a}, 0.0)",
    "sigmoid": lambda a: f"sigmoid({a})",
    "tanh": lambda a: f"tanh({a})",
    "exp": lambda a: f"exp({a})",
    "log": lambda a: f"log({a})",
    "sqrt": lambda a: f"sqrt({a})",
    "rsqrt": lambda a: f"rsqrt({a})",
    "abs": lambda a: f"abs({a})",
    "erf": lambda a: f"erf({a})",
    "sin": lambda a: f"sin({a})",
    "cos": lambda a: f"cos({a})",
    "neg": lambda a: f"-({a})",
    "reciprocal": lambda a: f"1.0 / ({a})",
    "square": lambda a: f"({a}) * ({a})",
    "log1p": lambda a: f"log(1.0 + {a})",
    "expm1": lambda a: f"exp({a}) - 1.0",
    "log2": lambda a: f"log({a}) * 1.4426950408889634",
    "log10": lambda a: f"log({a}) * 0.4342944819032518",
    "exp2": lambda a: f"pow(2.0, {a})",
    "silu": lambda a: f"{a} * sigmoid({a})",
    "mish": lambda a: f"{a} * tanh(select({a} > 20.0, {a}, log(1.0 + exp({a}))))",
    "hardsigmoid": lambda a: f"min(max({a} + 3.0, 0.0), 6.0) / 6.0",
    "hardswish": lambda a: f"{a} * min(max({a} + 3.0, 0.0), 6.0) / 6.0",
    "relu6": lambda a: f"min(max({a}, 0.0), 6.0)",
    "softsign": lambda a: f"{a} / (1.0 + abs({a}))",
    "tanhshrink": lambda a: f"{a} - tanh({a})",
    "sign": lambda a: f"select({a} > 0, 1.0, select({a} < 0, -1.0, 0.0))",
    "floor": lambda a: f"{a} // 1.0",
    "ceil": lambda a: f"-((-({a})) // 1.0)",
    "logical_not": lambda a: f"not ({a} != 0)",
    "bitwise_not": lambda a: f"not ({a} != 0)",
    "isnan": lambda a: f"{a} != {a}",
    "log_sigmoid": lambda a: f"min({a}, 0.0) - log(1.0 + exp(-abs({a})))",
    "round": lambda a: (f"select(({a} + 0.5) // 1.0 - {a} == 0.5 and (({a} + 0.5) // 1.0) % 2.0 != 0.0, "
                        f"({a} + 0.5) // 1.0 - 1.0, ({a} + 0.5) // 1.0)"),
    "trunc": lambda a: f"select({a} >= 0.0, {a} // 1.0, -((-({a})) // 1.0))",
    "selu": lambda a: f"select({a} > 0.0, 1.0507009873554805 * {a}, 1.7580993408473766 * (exp({a}) - 1.0))",
    "sinh": lambda a: f"(exp({a}) - exp(-({a}))) * 0.5",
    "cosh": lambda a: f"(exp({a}) + exp(-({a}))) * 0.5",
}

BINARY = {
    "mul": lambda a, b: f"{a} * {b}",
    "maximum": lambda a, b: f"max({a}, {b})",
    "minimum": lambda a, b: f"min({a}, {b})",
    "fmax": lambda a, b: f"max({a}, {b})",
    "fmin": lambda a, b: f"min({a}, {b})",
    "pow": lambda a, b: f"pow({a}, {b})",
    "eq": lambda a, b: f"{a} == {b}",
    "ne": lambda a, b: f"{a} != {b}",
    "lt": lambda a, b: f"{a} < {b}",
    "le": lambda a, b: f"{a} <= {b}",
    "gt": lambda a, b: f"{a} > {b}",
    "ge": lambda a, b: f"{a} >= {b}",
    "logical_and": lambda a, b: f"({a} != 0) and ({b} != 0)",
    "logical_or": lambda a, b: f"({a} != 0) or ({b} != 0)",
    "bitwise_and": lambda a, b: f"({a} != 0) and ({b} != 0)",
    "bitwise_or": lambda a, b: f"({a} != 0) or ({b} != 0)",
    "remainder": lambda a, b: f"{a} % {b}",
    "__and__": lambda a, b: f"({a} != 0) and ({b} != 0)",
    "__or__": lambda a, b: f"({a} != 0) or ({b} != 0)",
    "xlogy": lambda a, b: f"select({a} == 0, 0.0, {a} * log({b}))",
}


def pointwise_f(fe, node, name):
    """(operands, f) for a pointwise node, or None when name is not pointwise."""
    a = list(node.args)
    kw = dict(node.kwargs)
    if name in UNARY:
        return [a[0]], lambda v, i, g=UNARY[name]: g(v[0])
    if name in BINARY:
        return [a[0], a[1]], lambda v, i, g=BINARY[name]: g(v[0], v[1])
    if name in ("add", "sub", "rsub"):
        alpha = kw.get("alpha", a[2] if len(a) > 2 else 1)
        sgn = "+" if name == "add" else "-"
        if name == "rsub":
            return [a[1], a[0]], lambda v, i: f"{v[0]} - " + (f"{v[1]}" if alpha == 1 else f"{flit(alpha)} * {v[1]}")
        return [a[0], a[1]], lambda v, i: f"{v[0]} {sgn} " + (f"{v[1]}" if alpha == 1 else f"{flit(alpha)} * {v[1]}")
    if name == "div":
        mode = kw.get("rounding_mode", a[2] if len(a) > 2 else None)
        if mode == "floor":
            return [a[0], a[1]], lambda v, i: f"{v[0]} // {v[1]}"
        if mode == "trunc":
            return [a[0], a[1]], lambda v, i: (f"select({v[0]} / {v[1]} >= 0, ({v[0]} / {v[1]}) // 1.0, "
                                               f"-((-({v[0]} / {v[1]})) // 1.0))")
        return [a[0], a[1]], lambda v, i: f"{v[0]} / {v[1]}"
    if name == "gelu":
        ap = kw.get("approximate", a[1] if len(a) > 1 else "none")
        return [a[0]], lambda v, i: _gelu(v[0], ap)
    if name == "leaky_relu":
        s = kw.get("negative_slope", a[1] if len(a) > 1 else 0.01)
        return [a[0]], lambda v, i: f"select({v[0]} > 0.0, {v[0]}, {v[0]} * {flit(s)})"
    if name == "elu":
        al = a[1] if len(a) > 1 else kw.get("alpha", 1.0)
        sc = a[2] if len(a) > 2 else kw.get("scale", 1.0)
        isc = a[3] if len(a) > 3 else kw.get("input_scale", 1.0)
        return [a[0]], lambda v, i: (f"select({v[0]} > 0.0, {v[0]} * {flit(sc)}, (exp({v[0]} * {flit(isc)}) - 1.0)"
                                     f" * {flit(al * sc)})")
    if name == "celu":
        al = a[1] if len(a) > 1 else kw.get("alpha", 1.0)
        return [a[0]], lambda v, i: f"select({v[0]} > 0.0, {v[0]}, (exp({v[0]} / {flit(al)}) - 1.0) * {flit(al)})"
    if name == "hardtanh":
        lo = a[1] if len(a) > 1 else kw.get("min_val", -1.0)
        hi = a[2] if len(a) > 2 else kw.get("max_val", 1.0)
        return [a[0]], lambda v, i: _clamp(v[0], flit(lo), flit(hi))
    if name == "softplus":
        beta = a[1] if len(a) > 1 else kw.get("beta", 1.0)
        th = a[2] if len(a) > 2 else kw.get("threshold", 20.0)
        return [a[0]], lambda v, i: (f"select({v[0]} * {flit(beta)} > {flit(th)}, {v[0]}, "
                                     f"log(1.0 + exp({v[0]} * {flit(beta)})) / {flit(beta)})")
    if name == "threshold":
        return [a[0]], lambda v, i: f"select({v[0]} > {flit(a[1])}, {v[0]}, {flit(a[2])})"
    if name in ("clamp", "clip"):
        lo = a[1] if len(a) > 1 else kw.get("min")
        hi = a[2] if len(a) > 2 else kw.get("max")
        ops = [a[0]] + [x for x in (lo, hi) if x is not None and hasattr(x, "op")]
        def f(v, i, lo=lo, hi=hi):
            k = 1
            los = his = None
            if lo is not None:
                los = v[k] if hasattr(lo, "op") else flit(lo)
                k += hasattr(lo, "op")
            if hi is not None:
                his = v[k] if hasattr(hi, "op") else flit(hi)
            return _clamp(v[0], los, his)
        return ops, f
    if name == "clamp_min":
        return [a[0], a[1]], lambda v, i: f"max({v[0]}, {v[1]})"
    if name == "clamp_max":
        return [a[0], a[1]], lambda v, i: f"min({v[0]}, {v[1]})"
    if name == "where":
        if len(a) == 1:
            return None
        return [a[0], a[1], a[2]], lambda v, i: f"select({v[0]}, {v[1]}, {v[2]})"
    if name == "masked_fill":
        return [a[0], a[1], a[2]], lambda v, i: f"select({v[1]}, {v[2]}, {v[0]})"
    if name == "addcmul":
        val = kw.get("value", a[3] if len(a) > 3 else 1)
        return [a[0], a[1], a[2]], lambda v, i: f"{v[0]} + {flit(val)} * {v[1]} * {v[2]}"
    if name == "addcdiv":
        val = kw.get("value", a[3] if len(a) > 3 else 1)
        return [a[0], a[1], a[2]], lambda v, i: f"{v[0]} + {flit(val)} * {v[1]} / {v[2]}"
    if name == "lerp":
        return [a[0], a[1], a[2]], lambda v, i: f"{v[0]} + {v[2]} * ({v[1]} - {v[0]})"
    if name in ("triu", "tril"):
        d = a[1] if len(a) > 1 else kw.get("diagonal", 0)
        cmp = ">=" if name == "triu" else "<="
        return [a[0]], lambda v, i: f"select({pr(i[-1] - i[-2])} {cmp} {d}, {v[0]}, 0.0)"
    if name in torch_backward.POINTWISE:        # a training step's backward (train.py)
        return torch_backward.pointwise_f(name, a, kw)
    if name in ("fill", "zero"):
        val = 0.0 if name == "zero" else a[1]
        return [a[0]] + ([val] if hasattr(val, "op") else []), \
            (lambda v, i: v[1]) if hasattr(val, "op") else (lambda v, i: flit(val))
    return None


VIEWS = {"view", "_unsafe_view", "reshape", "flatten", "unflatten", "permute", "transpose", "t",
         "expand", "expand_as", "broadcast_to", "unsqueeze", "squeeze", "slice", "select",
         "narrow", "alias", "detach", "lift_fresh_copy", "view_as", "contiguous", "movedim",
         "swapaxes", "diagonal", "numpy_T", "mT", "adjoint", "unfold"}
# ATen's other names of an operator (torch.multiply is aten.multiply, not aten.mul)
ALIASES = {"multiply": "mul", "divide": "div", "true_divide": "div", "subtract": "sub",
           "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
           "not_equal": "ne", "absolute": "abs", "negative": "neg",
           "fix": "trunc", "special_expit": "sigmoid", "special_erf": "erf", "moveaxis": "movedim",
           "concat": "cat", "concatenate": "cat", "swapdims": "swapaxes"}
IGNORED = {"_assert_tensor_metadata", "_assert_scalar", "sym_size", "sym_constrain_range_for_size",
           "_assert_async", "_functional_assert_async"}


def handle(fe, node):
    t = node.target
    if t is operator.getitem:
        base = fe.env[node.args[0]]
        if isinstance(base, (list, tuple)):
            return base[node.args[1]]
        raise fe.err(node, "unsupported getitem")
    if not hasattr(t, "_overloadpacket"):
        raise fe.err(node, f"unsupported operation {t}")
    pk = t._overloadpacket.__name__
    inplace = pk.endswith("_") and not pk.startswith("_")
    name = pk[:-1] if inplace else pk
    name = ALIASES.get(name, name)
    if name in IGNORED:
        return None
    val = node.meta.get("val")
    # scalars computed in the graph (sizes)
    if not hasattr(val, "shape") and not isinstance(val, (list, tuple)) and val is not None:
        return val
    if inplace and name in ("detach", "requires_grad"):
        return fe.env[node.args[0]]       # no data changes
    r = _dispatch(fe, node, name, val)
    if inplace:
        dst = fe.env[node.args[0]]
        if not isinstance(r, Op_):
            raise fe.err(node, f"unsupported in-place operator aten.{pk}")
        root = dst.root().tensor
        if root.role == "in" and root.name.endswith("num_batches_tracked"):
            # batch norm in training mode counts its batches: a buffer update that is no part
            # of the forward's outputs (as the running statistics, docs/translate.md)
            fe.g.ops.remove(r.op)
            fe.g.tensors.remove(r.value.root().tensor)
            return dst
        if root.role == "in" and root.name in fe.state and name == "copy":
            if not node.users:
                # `self.hidden = t` in forward: torch.export writes t back into the attribute at
                # the end; eager only rebinds the name, no kernel (the attribute's new value is
                # no output of forward, as batch norm's running statistics)
                fe.g.ops.remove(r.op)
                fe.g.tensors.remove(r.value.root().tensor)
                fe.g.notes.append(f"note: forward() assigns the tensor attribute '{root.name}'; "
                                  "the AIR keeps forward's outputs only")
                return dst
            return r.value     # self.hidden.copy_(x): eager's copy kernel, into a tmp
        if root.role == "in":
            raise fe.err(node, f"in-place update of an input or parameter (aten.{pk}) is not supported")
        r.op.out = dst
        fe.g.tensors.remove(r.value.root().tensor)
        return dst
    if isinstance(r, Op_):
        return r.value
    return r


class Op_:
    def __init__(self, op, value):
        self.op, self.value = op, value


def V(fe, x):
    """The op-graph value of an FX argument (a node, a scalar or None)."""
    if hasattr(x, "op"):
        return fe.env[x]
    return x


def _kernel(fe, node, kind, ins, shape, attrs=None, dtype=None):
    line, path = fe.where(node)
    name = fe.kname(path, fe.short(node))
    out = fe.new_out(node, shape, name, dtype)
    op = fe.add_op(node, kind, ins, out, attrs, opname=name)
    return Op_(op, out)


def _nd(d, r):
    return d + r if d < 0 else d


def _dispatch(fe, node, name, val):
    """The call's result in the op graph: the handler HANDLERS names for `name` (the overload
    packet's name, in-place `_` and ALIASES applied), else the first GUARDED handler whose names
    hold it and whose test passes, else the error of an unknown operator."""
    a = list(node.args)
    kw = dict(node.kwargs)
    h = HANDLERS.get(name)
    if h is None:
        h = next((g for names, test, g in GUARDED if name in names and test(fe, a, val)),
                 unsupported)
    return h(fe, node, name, a, kw, val)


# --------------------------------------------------------------------------------------------
# Handlers: handler(fe, node, name, a, kw, val) -> the call's result, as handle() takes it
# (a: the node's arguments, kw: its keyword arguments, val: its meta value).  HANDLERS and
# GUARDED, at the end of the file, say which ATen names each one serves.

def unsupported(fe, node, name, a, kw, val):
    raise fe.err(node, f"unsupported operator {fe.aten(node)}")


# ---- views --------------------------------------------------------------------------------

def dropout(fe, node, name, a, kw, val):
    """The identity in eval mode or at p=0; dropout and native_dropout in training mode draw
    their mask (dropout_train); the other dropouts then are refused."""
    p = a[1] if len(a) > 1 else kw.get("p", 0.5)
    train = a[2] if len(a) > 2 else kw.get("train", True)
    if train and p and name in ("dropout", "native_dropout"):
        return dropout_train(fe, node, name, V(fe, a[0]), p, val)
    if train and p:   # random: the model is in training mode (as constructed)
        raise fe.err(node, f"unsupported operator aten.{name} with p={p} in training mode "
                     "(random numbers inside forward; eval() or p=0 is the identity)")
    if name == "native_dropout":   # eval: the input, and a mask of ones if forward uses it
        x = V(fe, a[0])
        used = [n for n in node.users if n.target is operator.getitem and n.args[1] == 1 and n.users]
        ones = _kernel(fe, node, "pointwise", [], list(x.shape), {"f": lambda v, i: "1"},
                       dtype="bool").value if used else None
        return [x, ones]
    return view(fe, node, "alias", a[:1], {}, val)


def broadcast_tensors(fe, node, name, a, kw, val):
    outs = []
    for xn, vv in zip(a[0], val):
        x = V(fe, xn)
        outs.append(expand_view(fe, x, [int(s) for s in vv.shape]))
    return outs


def max_min_indices(fe, node, name, a, kw, val):
    """max.dim / min.dim: values and indices; the indices are supported only when unused."""
    users = [u for u in node.users if u.target is operator.getitem and u.args[1] == 1 and u.users]
    x = V(fe, a[0])
    dim = _nd(a[1], len(x.shape))
    keep = a[2] if len(a) > 2 else kw.get("keepdim", False)
    if users:   # values and indices from one kernel, as eager's: argmax writing its max
        r = reduce_(fe, node, "arg" + name, x, [dim], keep, val[1])
        values = fe.new_out(node, list(r.value.shape), r.op.name + "_values", fe.dtype(node, val[0]))
        r.op.attrs["values"] = values
        return [values, r.value]
    r = reduce_(fe, node, "amax" if name == "max" else "amin", x, [dim], keep, val[0])
    return [r.value, None]


def max_min_binary(fe, node, name, a, kw, val):
    """max.other / min.other: the pointwise maximum / minimum."""
    return pointwise(fe, node, "maximum" if name == "max" else "minimum", a, kw, val)


# ---- pointwise ----------------------------------------------------------------------------

def affine_terms(fe, name, a, kw, vals):
    """An integer add or sub of aranges and integers (`arange(S) + offset`, transformers' mask
    indices) as an affine index, as arange's own (torch_index.reader): ix -> the value's
    affine form, or None when some operand is anything else."""
    from .torch_index import source
    if name not in ("add", "sub") or len(vals) < 2:
        return None
    alpha = kw.get("alpha", a[2] if len(a) > 2 else 1)
    if not isinstance(alpha, int):
        return None
    terms = []
    for v in vals[:2]:
        if isinstance(v, int) and not isinstance(v, bool):
            terms.append(lambda ix, c=v: c)
            continue
        if not hasattr(v, "index") or getattr(v, "dtype", None) not in ("i64", "i32"):
            return None
        probe = [sympy.Symbol(f"_p{k}", integer=True) for k in range(len(v.shape))]
        by = source(fe, v, probe)[2]
        if by is None or "affine" not in by.attrs:
            return None
        terms.append(lambda ix, v=v: (lambda t, j, op: op.attrs["affine"](j))(*source(fe, v, ix)))
    sgn = 1 if name == "add" else -1
    return lambda ix: terms[0](ix) + sgn * alpha * terms[1](ix)


def pointwise(fe, node, name, a, kw, val):
    pf = pointwise_f(fe, node, name)
    if pf is None:   # where(condition): the indices of the true entries
        return unsupported(fe, node, name, a, kw, val)
    ops, f = pf
    vals = [V(fe, x) for x in ops]
    shape = fe.generic_shape(node, vals)
    r = _kernel(fe, node, "pointwise", vals, shape, {"f": f})
    affine = affine_terms(fe, name, a, kw, vals)
    if affine is not None:
        r.op.attrs["affine"] = affine
    return r


def cast_copy(fe, node, name, a, kw, val):
    """to, _to_copy, type_as (the input itself when the dtype stays), clone, copy: a copy."""
    if name == "copy":
        vals = [V(fe, a[1])]
    else:
        vals = [V(fe, a[0])]
    x = vals[0]
    if name != "clone" and name != "copy" and fe.dtype(node) == x.dtype:
        return x
    r = _kernel(fe, node, "pointwise", [x], list(x.shape), {"f": lambda v, i: v[0]})
    if torch_index.widening(x.dtype, r.value.dtype):
        r.op.attrs["alias"] = x     # the same integers: an index through it reads x's
    return r


# ---- creation -----------------------------------------------------------------------------

def creation(fe, node, name, a, kw, val):
    """zeros, ones, full, scalar_tensor (and their _like and new_ forms): a kernel writing the
    constant; empty and empty_strided: a tensor no kernel writes."""
    like = V(fe, a[0]) if name.endswith("_like") else None
    shape = list(like.shape) if like is not None else fe.generic_shape(node, [])
    if name in ("empty", "empty_like", "new_empty", "empty_strided"):
        return fe.new_out(node, shape, fe.kname(fe.where(node)[1], name))
    if name in ("zeros", "zeros_like", "new_zeros"):
        v = 0.0
    elif name in ("ones", "ones_like", "new_ones"):
        v = 1.0
    elif name == "scalar_tensor":
        v = a[0]
    elif name in ("full", "new_full"):
        v = a[1] if name == "full" else a[2]
    else:
        v = a[1]
    return _kernel(fe, node, "pointwise", [], shape, {"f": lambda vv, i, v=v: flit(v)})


def arange(fe, node, name, a, kw, val):
    nums = [x for x in a if isinstance(x, (int, float))]
    start, step = (0, 1) if len(nums) < 2 else (nums[0], nums[2] if len(nums) > 2 else 1)
    shape = fe.generic_shape(node, [])
    r = _kernel(fe, node, "pointwise", [], shape,
                {"f": lambda vv, i: f"{flit(start)} + {flit(step)} * {pr(i[0])}"})
    if all(isinstance(v, int) for v in (start, step)):
        # an op that indexes with it reads the element's value as this affine index
        # (torch_index.reader: GPT-2's wpe(arange(S)) is `wpe[s, d]`, no data index)
        r.op.attrs["affine"] = lambda ix: start + step * ix[0]
    return r


# ---- contractions -------------------------------------------------------------------------

def mm(fe, node, name, a, kw, val):
    x, y = V(fe, a[0]), V(fe, a[1])
    return matmul(fe, node, x, y, val)


def addmm(fe, node, name, a, kw, val):
    c, x, y = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    beta = kw.get("beta", 1)
    alpha = kw.get("alpha", 1)
    return matmul(fe, node, x, y, val, c=c, alpha=alpha, beta=beta)


def einsum_call(fe, node, name, a, kw, val):
    return einsum(fe, node, a[0], [V(fe, x) for x in a[1]], val)


def linear(fe, node, name, a, kw, val):
    x, w = V(fe, a[0]), V(fe, a[1])
    b = V(fe, a[2]) if len(a) > 2 and a[2] is not None else None
    wt = transpose_view(w, 0, 1) if len(w.shape) == 2 else w
    return matmul(fe, node, x, wt, val, bias=b)


# ---- convolution and pooling --------------------------------------------------------------

def adaptive_pool(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    osz = list(a[1]) if isinstance(a[1], (list, tuple)) else [a[1]]
    vv = val[0] if isinstance(val, (list, tuple)) else val
    shape = list(x.shape[:len(x.shape) - len(osz)]) + \
        [fe.sym_by_value(int(s)) for s in vv.shape[len(x.shape) - len(osz):]]
    kind = "max" if "max" in name else "avg"
    r = _kernel(fe, node, "adaptive_pool", [x], shape, {"kind": kind, "nsp": len(osz)},
                dtype=fe.dtype(node, vv))
    if isinstance(val, (list, tuple)):
        _no_indices(fe, node)
        return [r.value, None]
    return r


# ---- normalisation, softmax, reductions ---------------------------------------------------

def softmax(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    d = _nd(a[1], len(x.shape))
    return _kernel(fe, node, "softmax", [x], list(x.shape), {"dim": d, "log": "log" in name})


def layer_norm(fe, node, name, a, kw, val):
    """layer_norm, native_layer_norm (the mean and rstd outputs unused), rms_norm."""
    x = V(fe, a[0])
    nshape = a[1]
    rms = name == "rms_norm"
    w = V(fe, a[2]) if len(a) > 2 and a[2] is not None else None
    b = None
    if rms:
        eps = a[3] if len(a) > 3 and a[3] is not None else kw.get("eps")
        if eps is None:
            eps = float(fe.torch.finfo(node.meta["val"].dtype).eps)
    else:
        b = V(fe, a[3]) if len(a) > 3 and a[3] is not None else None
        eps = a[4] if len(a) > 4 else kw.get("eps", 1e-5)
    vv = val[0] if isinstance(val, (list, tuple)) else val
    r = _kernel(fe, node, "layer_norm", [x], list(x.shape),
                {"ndims": len(nshape), "weight": w, "bias": b, "eps": eps, "rms": rms},
                dtype=fe.dtype(node, vv))
    if isinstance(val, (list, tuple)):
        return [r.value, None, None]
    return r


def batch_norm(fe, node, name, a, kw, val):
    """Running statistics: a batch_norm kernel; training mode or none kept: the batch's
    statistics per channel (a channel_norm kernel)."""
    x = V(fe, a[0])
    w = V(fe, a[1]) if a[1] is not None else None
    b = V(fe, a[2]) if a[2] is not None else None
    rm = V(fe, a[3]) if len(a) > 3 and a[3] is not None else None
    rv = V(fe, a[4]) if len(a) > 4 and a[4] is not None else None
    training = a[5] if len(a) > 5 and name != "_native_batch_norm_legit_no_training" else False
    eps = a[-2] if name in ("batch_norm",) else a[-1]
    if name == "batch_norm":
        eps = a[7]
    vv = val[0] if isinstance(val, (list, tuple)) else val
    if training or rm is None:
        # training-mode statistics: per channel over N and the spatial dims
        r = _kernel(fe, node, "layer_norm", [x], list(x.shape),
                    {"stats_dims": [0] + list(range(2, len(x.shape))), "weight": w, "bias": b,
                     "eps": eps, "channel": True}, dtype=fe.dtype(node, vv))
        r.op.kind = "channel_norm"
        if training and rm is not None:
            fe.g.notes.append(f"note: {r.op.path or 'Model'}: batch_norm in training mode (the "
                              f"model was not put in eval()): batch statistics; the "
                              f"running-statistics update is not translated")
    else:
        r = _kernel(fe, node, "batch_norm", [x], list(x.shape),
                    {"mean": rm, "var": rv, "weight": w, "bias": b, "eps": eps},
                    dtype=fe.dtype(node, vv))
    if isinstance(val, (list, tuple)):
        return [r.value] + [None] * (len(val) - 1)
    return r


def group_norm(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    if name == "group_norm":
        G, w, b, eps = a[1], a[2] if len(a) > 2 else None, a[3] if len(a) > 3 else None, \
            a[4] if len(a) > 4 else 1e-5
    else:
        w, b, G, eps = a[1], a[2], a[6], a[7]
    w = V(fe, w) if w is not None else None
    b = V(fe, b) if b is not None else None
    vv = val[0] if isinstance(val, (list, tuple)) else val
    r = _kernel(fe, node, "group_norm", [x], list(x.shape),
                {"groups": G, "weight": w, "bias": b, "eps": eps}, dtype=fe.dtype(node, vv))
    if isinstance(val, (list, tuple)):
        return [r.value, None, None]
    return r


def instance_norm(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    w = V(fe, a[1]) if a[1] is not None else None
    b = V(fe, a[2]) if a[2] is not None else None
    use_stats = a[5]
    if not use_stats:
        raise fe.err(node, "unsupported operator aten.instance_norm with running statistics")
    C = fe.sizes.value(x.shape[1])
    return _kernel(fe, node, "group_norm", [x], list(x.shape),
                   {"groups": C, "weight": w, "bias": b, "eps": a[7]})


def flip(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    dims = {_nd(d, len(x.shape)) for d in a[1]}
    fl = Value(list(x.shape), x.dtype, base=x,
               fn=lambda idx: [x.shape[j] - 1 - e if j in dims else e for j, e in enumerate(idx)])
    return _kernel(fe, node, "pointwise", [fl], list(x.shape), {"f": lambda v, i: v[0]})


def is_vector_diag(fe, a, val):
    """diag of a vector on the main diagonal (GUARDED's test; diag of a matrix is refused)."""
    return len(V(fe, a[0]).shape) == 1 and (len(a) < 2 or a[1] == 0)


def diag_matrix(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    # out[i, j] = x[j] on the diagonal (x broadcasts along the last dim), else 0
    return _kernel(fe, node, "pointwise", [x], [x.shape[0], x.shape[0]],
                   {"f": lambda v, i: f"select({pr(i[0])} == {pr(i[1])}, {v[0]}, 0.0)"})


def cumsum(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    return _kernel(fe, node, "cumsum", [x], list(x.shape),
                   {"dim": _nd(a[1], len(x.shape)), "prod": name == "cumprod"})


def cat(fe, node, name, a, kw, val):
    """cat (empty 1-d operands dropped, as PyTorch's legacy rule), stack (cat of unsqueezed)."""
    xs = [V(fe, x) for x in a[0]]
    d = a[1] if len(a) > 1 else kw.get("dim", 0)
    if name == "stack":
        d = _nd(d, len(xs[0].shape) + 1)
        xs = [unsqueeze_view(x, d) for x in xs]
    else:
        xs = [x for x in xs if not (len(x.shape) == 1 and fe.sizes.value(x.shape[0]) == 0)]
        d = _nd(d, len(xs[0].shape))
    shape = list(xs[0].shape)
    shape[d] = sum((x.shape[d] for x in xs), sympy.Integer(0))
    return _kernel(fe, node, "cat", xs, shape, {"dim": d})


def pad(fe, node, name, a, kw, val):
    """Constant padding (non-negative); reflect, replicate and circular through pad_index."""
    x = V(fe, a[0])
    pads = list(a[1])
    mode = a[2] if name == "pad" and len(a) > 2 else kw.get("mode", "constant")
    if mode in ("reflect", "replicate", "circular"):
        return pad_index(fe, node, x, list(a[1]), mode)
    if mode != "constant":
        raise fe.err(node, f"unsupported operator aten.pad with mode '{mode}'")
    value = (a[3] if len(a) > 3 else kw.get("value")) if name == "pad" else (a[2] if len(a) > 2 else 0)
    if any(p < 0 for p in pads):
        raise fe.err(node, "unsupported operator aten.pad with negative padding")
    shape = list(x.shape)
    r = len(shape)
    for j in range(len(pads) // 2):
        shape[r - 1 - j] = shape[r - 1 - j] + pads[2 * j] + pads[2 * j + 1]
    return _kernel(fe, node, "pad", [x], shape, {"pads": pads, "value": value or 0.0})


def sdpa(fe, node, name, a, kw, val):
    """scaled_dot_product_attention (and its flash and efficient forms): one sdpa kernel."""
    q, k, v = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    mask = V(fe, a[3]) if len(a) > 3 and a[3] is not None else (V(fe, kw["attn_mask"]) if kw.get("attn_mask") is not None else None)
    p = a[4] if len(a) > 4 else kw.get("dropout_p", 0.0)
    causal = a[5] if len(a) > 5 else kw.get("is_causal", False)
    scale = a[6] if len(a) > 6 else kw.get("scale")
    gqa = a[7] if len(a) > 7 else kw.get("enable_gqa", False)
    if p:
        raise fe.err(node, "unsupported operator aten.scaled_dot_product_attention with dropout")
    if scale is None:
        scale = q.shape[-1]          # 1/sqrt(E), written as rsqrt of the size
    g = 1
    if gqa and len(q.shape) >= 3:
        g = fe.sizes.value(q.shape[-3]) // fe.sizes.value(k.shape[-3])
        if g > 1:
            fe.sizes.freeze_syms(q.shape[-3])
    shape = list(q.shape[:-1]) + [v.shape[-1]]
    return _kernel(fe, node, "sdpa", [q, k, v], shape,
                   {"mask": mask, "causal": causal, "scale": scale, "gqa": g,
                    "math": library_math(fe, "sdpa", q.dtype)})


def argmax(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    dim = a[1] if len(a) > 1 else kw.get("dim")
    keep = a[2] if len(a) > 2 else kw.get("keepdim", False)
    if dim is None and keep:
        raise fe.err(node, f"unsupported operator {fe.aten(node)} without dim and with keepdim")
    return reduce_(fe, node, name, x, [] if dim is None else [dim], keep, val)


def pad_index(fe, node, x, pads, mode):
    """reflect / replicate / circular padding: a copy through an index map (max and min are
    affine; circular wraps with %)."""
    shape = list(x.shape)
    r = len(shape)
    nd = len(pads) // 2
    for j in range(nd):
        fe.sizes.freeze_syms(shape[r - 1 - j])
    out_shape = list(shape)
    for j in range(nd):
        out_shape[r - 1 - j] = shape[r - 1 - j] + pads[2 * j] + pads[2 * j + 1]

    def fn(idx):
        idx = list(idx)
        for j in range(nd):
            d = r - 1 - j
            H = shape[d]
            e = idx[d] - pads[2 * j]
            if mode == "replicate":
                idx[d] = sympy.Min(sympy.Max(e, 0), H - 1)
            elif mode == "circular":
                idx[d] = sympy.Mod(e + H, H)
            else:
                a = sympy.Max(e, -e)
                idx[d] = (H - 1) - sympy.Max(H - 1 - a, a - (H - 1))
        return idx
    v = Value(out_shape, x.dtype, base=x, fn=fn)
    return _kernel(fe, node, "pointwise", [v], out_shape, {"f": lambda vv, i: vv[0]})


def repeat_roll(fe, node, name, x, a, kw):
    """x.repeat(sizes), torch.tile, torch.roll(x, shifts, dims) and x.repeat_interleave(n, dim):
    the copy eager makes, read through an index map: repeat and roll wrap with % (the wrapped
    dims' sizes become consts, as circular padding's), repeat_interleave divides by n."""
    shape = list(x.shape)
    r = len(shape)
    if name in ("repeat", "tile"):
        reps = list(a[1])
        if name == "tile":   # fewer repeats than dims: 1s in front
            reps = [1] * max(0, r - len(reps)) + reps
        lead = len(reps) - r
        if lead < 0:
            raise fe.err(node, "unsupported operator aten.repeat with fewer repeats than dims")
        for d in range(r):
            if reps[lead + d] != 1:
                fe.sizes.freeze_syms(shape[d])
        out_shape = [sympy.Integer(n) for n in reps[:lead]] + \
            [shape[d] * reps[lead + d] if reps[lead + d] != 1 else shape[d] for d in range(r)]

        def fn(idx):
            return [sympy.Mod(idx[lead + d], shape[d]) if reps[lead + d] != 1 else idx[lead + d]
                    for d in range(r)]
    elif name == "repeat_interleave":
        reps = a[1] if len(a) > 1 else kw.get("repeats")
        dim = a[2] if len(a) > 2 else kw.get("dim")
        if not isinstance(reps, int) or dim is None:
            raise fe.err(node, "unsupported operator aten.repeat_interleave "
                         + ("with a tensor of repeats (data-dependent sizes)" if not isinstance(reps, int)
                            else "without dim (of the flattened tensor); give dim"))
        dim = _nd(dim, r)
        out_shape = list(shape)
        out_shape[dim] = shape[dim] * reps

        def fn(idx):
            idx = list(idx)
            idx[dim] = fdiv(idx[dim], reps)
            return idx
    else:
        shifts = a[1] if len(a) > 1 else kw.get("shifts")
        dims = a[2] if len(a) > 2 else kw.get("dims", [])
        shifts = [shifts] if isinstance(shifts, int) else list(shifts)
        dims = [dims] if isinstance(dims, int) else list(dims or [])
        if not dims:
            raise fe.err(node, "unsupported operator aten.roll without dims (a roll of the "
                         "flattened tensor); give dims")
        by = {}
        for sh, d in zip(shifts, dims):
            d = _nd(d, r)
            by[d] = by.get(d, 0) + sh
        for d in by:
            fe.sizes.freeze_syms(shape[d])
        out_shape = shape

        def fn(idx):
            idx = list(idx)
            for d, sh in by.items():
                H = shape[d]
                idx[d] = sympy.Mod(idx[d] + (H - sh % fe.sizes.value(H)), H)
            return idx
    v = Value(out_shape, x.dtype, base=x, fn=fn)
    return _kernel(fe, node, "pointwise", [v], out_shape, {"f": lambda vv, i: vv[0]})


def im2col(fe, node, x, a, kw, val):
    """nn.Unfold (aten.im2col): out[b, (c*KH + ki)*KW + kj, oh*OW + ow] = x[b, c, oh*s + ki*d - p,
    ow*s + kj*d - p], 0 in the padding; one copy kernel, as eager's, read through an index map
    (the padded reads clamped into the tensor and discarded by a select on the iterators)."""
    ks, dl, pd, st = (_ints(a[k] if len(a) > k else kw.get(n), 2, dflt) for k, n, dflt in
                      ((1, "kernel_size", 1), (2, "dilation", 1), (3, "padding", 0), (4, "stride", 1)))
    r = len(x.shape)
    lead = list(x.shape[:r - 3])
    C, H, W = x.shape[r - 3:]
    fe.sizes.freeze_syms(H)
    fe.sizes.freeze_syms(W)
    OH = fdiv(H + 2 * pd[0] - dl[0] * (ks[0] - 1) - 1, st[0]) + 1
    OW = fdiv(W + 2 * pd[1] - dl[1] * (ks[1] - 1) - 1, st[1]) + 1
    shape = lead + [C * ks[0] * ks[1], OH * OW]
    if [fe.sizes.value(e) for e in shape] != [int(v) for v in val.shape]:
        raise fe.err(node, f"internal error: im2col shape {shape} is not PyTorch's {list(val.shape)}")
    nb = len(lead)

    def hw(idx):
        q, l = idx[nb], idx[nb + 1]
        h = fdiv(l, OW) * st[0] + sympy.Mod(fdiv(q, ks[1]), ks[0]) * dl[0] - pd[0]
        w = sympy.Mod(l, OW) * st[1] + sympy.Mod(q, ks[1]) * dl[1] - pd[1]
        return h, w

    def fn(idx):
        h, w = hw(idx)
        if pd[0]:
            h = sympy.Min(sympy.Max(h, 0), H - 1)
        if pd[1]:
            w = sympy.Min(sympy.Max(w, 0), W - 1)
        return list(idx[:nb]) + [fdiv(idx[nb], ks[0] * ks[1]), h, w]

    def f(v, i):
        if not (pd[0] or pd[1]):
            return v[0]
        h, w = hw(list(i))
        conds = []
        if pd[0]:
            conds += [f"{pr(h)} >= 0", f"{pr(h)} < {pr(H)}"]
        if pd[1]:
            conds += [f"{pr(w)} >= 0", f"{pr(w)} < {pr(W)}"]
        return f"select({' and '.join(conds)}, {v[0]}, 0.0)"
    v = Value(shape, x.dtype, base=x, fn=fn)
    return _kernel(fe, node, "pointwise", [v], shape, {"f": f})


def _no_indices(fe, node):
    """Refuses a use of an op's indices output, but for a max pool backward's (a training
    step's: torch_backward.max_pool_backward); whether that backward reads them."""
    used = [u for u in node.users if u.target is operator.getitem and u.args[1] == 1 and u.users]
    users = [u for u in used
             if not all("pool" in str(v.target) and "backward" in str(v.target) for v in u.users)]
    if users:
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with its indices "
                     "(AIR v1 has no data-dependent indices)")
    return bool(used)


# --------------------------------------------------------------------------------------------
# views


def transpose_view(x, d0, d1):
    r = len(x.shape)
    perm = list(range(r))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return permute_view(x, perm)


def permute_view(x, perm):
    shape = [x.shape[p] for p in perm]

    def fn(idx):
        out = [None] * len(perm)
        for j, p in enumerate(perm):
            out[p] = idx[j]
        return out

    def inv(bidx):
        return [bidx[p] for p in perm]
    return Value(shape, x.dtype, base=x, fn=fn, inv=inv)


def unsqueeze_view(x, d):
    shape = list(x.shape)
    shape.insert(d, sympy.Integer(1))
    return Value(shape, x.dtype, base=x, fn=lambda idx: idx[:d] + idx[d + 1:],
                 inv=lambda b: b[:d] + [sympy.Integer(0)] + b[d:])


def reshape_view(fe, x, out_vals, node=None):
    """x seen with the shape out_vals (concrete): the index map groups dims whose products
    match; a merged dim is split back with // and %, a split one is combined linearly."""
    ivals = [fe.sizes.value(s) for s in x.shape]
    ov = [int(v) for v in out_vals]
    ishape = list(x.shape)
    groups = []   # (in dims, out dims)
    i = j = 0
    while i < len(ivals) or j < len(ov):
        gi, gj = [], []
        pi = pj = 1
        while i < len(ivals) and ivals[i] == 1 and (j >= len(ov) or ov[j] != 1):
            groups.append(([i], []))
            i += 1
        while j < len(ov) and ov[j] == 1 and (i >= len(ivals) or ivals[i] != 1):
            groups.append(([], [j]))
            j += 1
        if i >= len(ivals) and j >= len(ov):
            break
        if i < len(ivals):
            gi.append(i); pi *= ivals[i]; i += 1
        if j < len(ov):
            gj.append(j); pj *= ov[j]; j += 1
        while pi != pj:
            if pi < pj and i < len(ivals):
                gi.append(i); pi *= ivals[i]; i += 1
            elif pj < pi and j < len(ov):
                gj.append(j); pj *= ov[j]; j += 1
            else:
                raise TranslateError("internal error: reshape groups do not match")
        groups.append((gi, gj))
    oshape = [sympy.Integer(1)] * len(ov)
    for gi, gj in groups:
        if not gj:
            continue
        if len(gj) == 1:
            e = sympy.Integer(1)
            for d in gi:
                e = e * ishape[d]
            oshape[gj[0]] = e
        elif len(gi) == 1:
            # a split: take the factors of a product of sizes when they match, else by value
            fac = sympy.Mul.make_args(sympy.sympify(ishape[gi[0]]))
            fac = [f for f in fac if not f.is_Number] if len(fac) >= len(gj) else []
            vals = [ov[d] for d in gj]
            if len(fac) == len(gj) and [fe.sizes.value(f) for f in fac] == vals:
                for d, f in zip(gj, fac):
                    oshape[d] = f
            else:
                for d in gj:
                    oshape[d] = fe.sym_by_value(ov[d])
                prod = sympy.Integer(1)
                for d in gj:
                    prod = prod * oshape[d]
                if sympy.expand(prod - ishape[gi[0]]) != 0:
                    fe.sizes.freeze_syms(ishape[gi[0]])
                    for d in gj:
                        fe.sizes.freeze_syms(oshape[d])
        else:
            for d in gj:
                oshape[d] = sympy.Integer(ov[d])
            for d in gi:
                fe.sizes.freeze_syms(ishape[d])

    fn = _regroup(groups, ishape, oshape, 0, 1)     # view index -> base index
    inv = _regroup(groups, oshape, ishape, 1, 0)    # base index -> view index
    return Value(oshape, x.dtype, base=x, fn=fn, inv=inv)


def _regroup(groups, to_shape, from_shape, to_side, from_side):
    """The index map of a reshape: an index of from_shape -> the index of to_shape that has the
    same row-major position within each group of dims (groups: (base dims, view dims))."""
    def f(idx):
        out = [sympy.Integer(0)] * len(to_shape)
        for g in groups:
            to_dims, from_dims = g[to_side], g[from_side]
            if not to_dims:
                continue
            lin = sympy.Integer(0)
            for d in from_dims:
                lin = lin * from_shape[d] + idx[d]
            for k, d in enumerate(to_dims):
                inner = sympy.Integer(1)
                for d2 in to_dims[k + 1:]:
                    inner = inner * to_shape[d2]
                e = lin if inner == 1 else fdiv(lin, inner)
                if k > 0:
                    e = sympy.Mod(e, to_shape[d])
                out[d] = e
        return out
    return f


def viewable(fe, node, x_node, shape):
    """Whether eager reshape of x is a view (else it copies)."""
    torch = fe.torch
    xv = x_node.meta.get("val")
    try:
        e = torch.empty_strided(tuple(xv.shape), tuple(xv.stride()), device="meta")
        e.view(tuple(int(s) for s in shape))
        return True
    except Exception:  # noqa: BLE001
        return False


def is_contiguous(fe, x_node):
    xv = x_node.meta.get("val")
    try:
        return bool(xv.is_contiguous())
    except Exception:  # noqa: BLE001
        return False


def view(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    if not isinstance(x, Value):
        return x        # a scalar constant: every view of it is the same number
    r = len(x.shape)
    if name in ("alias", "detach", "lift_fresh_copy"):
        return x
    if name == "contiguous":
        if is_contiguous(fe, node.args[0]):
            return x
        return _kernel(fe, node, "pointwise", [x], list(x.shape), {"f": lambda v, i: v[0]})
    if name in ("permute",):
        perm = [_nd(p, r) for p in a[1]]
        return permute_view(x, perm)
    if name in ("transpose", "swapaxes"):
        return transpose_view(x, _nd(a[1], r), _nd(a[2], r))
    if name == "t":
        return transpose_view(x, 0, 1) if r == 2 else x
    if name == "numpy_T":       # x.T: every dim reversed
        return permute_view(x, list(range(r))[::-1])
    if name in ("mT", "adjoint"):   # x.mT, x.mH of a real tensor: the last two dims swapped
        return transpose_view(x, r - 2, r - 1)
    if name == "movedim":
        src = [a[1]] if isinstance(a[1], int) else list(a[1])
        dst = [a[2]] if isinstance(a[2], int) else list(a[2])
        src = [_nd(s, r) for s in src]
        dst = [_nd(s, r) for s in dst]
        order = [d for d in range(r) if d not in src]
        perm = [None] * r
        for s, d in zip(src, dst):
            perm[d] = s
        it = iter(order)
        perm = [p if p is not None else next(it) for p in perm]
        return permute_view(x, perm)
    if name == "unsqueeze":
        return unsqueeze_view(x, _nd(a[1], r + 1))
    if name == "squeeze":
        dims = a[1] if len(a) > 1 else None
        if dims is None:
            dims = [d for d in range(r) if fe.sizes.value(x.shape[d]) == 1]
        elif isinstance(dims, int):
            dims = [dims]
        dims = sorted({_nd(d, r) for d in dims if fe.sizes.value(x.shape[_nd(d, r)]) == 1})
        keep = [d for d in range(r) if d not in dims]
        shape = [x.shape[d] for d in keep]

        def fn(idx):
            out = [sympy.Integer(0)] * r
            for k, d in enumerate(keep):
                out[d] = idx[k]
            return out
        return Value(shape, x.dtype, base=x, fn=fn, inv=lambda b: [b[d] for d in keep])
    if name in ("view", "_unsafe_view", "reshape", "flatten", "unflatten", "view_as"):
        shape = list(val.shape)
        if name == "reshape" and not viewable(fe, node, node.args[0], shape):
            c = _kernel(fe, node, "pointwise", [x], list(x.shape), {"f": lambda v, i: v[0]})
            c.op.aten += " (a copy: the input is not contiguous)"
            x = c.value
        return reshape_view(fe, x, shape, node)
    if name in ("expand", "expand_as", "broadcast_to"):
        return expand_view(fe, x, [int(s) for s in val.shape])
    if name in ("slice", "narrow"):
        d = _nd(a[1] if len(a) > 1 else 0, r)
        size = fe.sizes.value(x.shape[d])
        if name == "narrow":
            start, step = a[2], 1
            start = start + size if start < 0 else start
            end = start + a[3]
        else:
            start = a[2] if len(a) > 2 and a[2] is not None else 0
            end = a[3] if len(a) > 3 and a[3] is not None else size
            step = a[4] if len(a) > 4 else 1
            start = max(0, start + size if start < 0 else start)
            end = min(size, end + size if end < 0 else end)
        n = max(0, -(-(end - start) // step))
        if start == 0 and step == 1 and n == size:
            return x
        fe.sizes.freeze_syms(x.shape[d])
        shape = list(x.shape)
        shape[d] = sympy.Integer(n)
        return Value(shape, x.dtype, base=x,
                     fn=lambda idx: idx[:d] + [idx[d] * step + start] + idx[d + 1:])
    if name == "diagonal":
        off = a[1] if len(a) > 1 else 0
        d1, d2 = _nd(a[2] if len(a) > 2 else 0, r), _nd(a[3] if len(a) > 3 else 1, r)
        if off != 0 or r != 2:
            raise fe.err(node, f"unsupported operator {fe.aten(node)} with an offset or rank > 2")
        n = min(fe.sizes.value(x.shape[0]), fe.sizes.value(x.shape[1]))
        sh = x.shape[0] if fe.sizes.value(x.shape[0]) == n else x.shape[1]
        return Value([sh], x.dtype, base=x, fn=lambda idx: [idx[0], idx[0]])
    if name == "select":
        d = _nd(a[1], r)
        # x[:, -1] reads x[:, S - 1]: symbolic, so the dim stays a param (-D S=... reads the
        # last element at any size)
        k = sympy.Integer(a[2]) if a[2] >= 0 else x.shape[d] + a[2]
        shape = x.shape[:d] + x.shape[d + 1:]
        return Value(shape, x.dtype, base=x, fn=lambda idx: idx[:d] + [k] + idx[d:])
    if name == "unfold":
        # Tensor.unfold(d, size, step): out[.., w, .., j] = x[.., w*step + j, ..], the window
        # index w in dim d and the offset j a new last dim (ViT patches: a view, no kernel)
        d, size, step = _nd(a[1], r), int(a[2]), int(a[3])
        L = x.shape[d]
        if (fe.sizes.value(L) - size) % step:
            fe.sizes.freeze_syms(L)
        shape = list(x.shape)
        shape[d] = fdiv(L - size, step) + 1
        shape.append(sympy.Integer(size))
        return Value(shape, x.dtype, base=x,
                     fn=lambda idx: idx[:d] + [idx[d] * step + idx[r]] + idx[d + 1:r])
    raise fe.err(node, f"unsupported operator {fe.aten(node)}")


def expand_view(fe, x, tgt):
    """x broadcast to the concrete shape tgt: a size-1 (or missing) dim reads index 0."""
    r = len(x.shape)
    nr = len(tgt)
    lead = nr - r
    shape = []
    for j in range(nr):
        jj = j - lead
        if jj >= 0 and fe.sizes.value(x.shape[jj]) == int(tgt[j]):
            shape.append(x.shape[jj])
        else:
            shape.append(fe.sym_by_value(int(tgt[j])))

    def fn(idx):
        return [sympy.Integer(0) if fe.sizes.value(x.shape[jj]) == 1 and int(tgt[jj + lead]) != 1
                else idx[jj + lead] for jj in range(r)]
    return Value(shape, x.dtype, base=x, fn=fn)


def splits(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    r = len(x.shape)
    d = _nd((a[2] if len(a) > 2 else kw.get("dim", 0)) if name != "unbind" else (a[1] if len(a) > 1 else 0), r)
    outs = []
    off = 0
    # Equal pieces whose size is the dim's size over their count with integer coefficients
    # (chunk(3) of 3 * DIM: DIM) stay symbolic, offsets k * DIM; other splits freeze the dim.
    piece = None
    if name != "unbind" and len(val) > 1 and len({int(v.shape[d]) for v in val}) == 1:
        e = sympy.expand(sympy.sympify(x.shape[d]) / len(val))
        if all(c.is_Integer for c in sympy.Poly(e, *sorted(e.free_symbols, key=str)).coeffs()) \
                if e.free_symbols else e.is_Integer:
            piece = e
    if len(val) > 1 and piece is None:
        fe.sizes.freeze_syms(x.shape[d])
    for v in val:
        n = int(v.shape[d]) if name != "unbind" else 1
        if name == "unbind":
            k = off
            outs.append(Value(x.shape[:d] + x.shape[d + 1:], x.dtype, base=x,
                              fn=lambda idx, k=k: idx[:d] + [sympy.Integer(k)] + idx[d:]))
            off += n
            continue
        shape = list(x.shape)
        shape[d] = piece if piece is not None else sympy.Integer(n) if len(val) > 1 else x.shape[d]
        o = off
        outs.append(Value(shape, x.dtype, base=x,
                          fn=lambda idx, o=o: idx[:d] + [idx[d] + o] + idx[d + 1:]))
        off = off + (piece if piece is not None else n)
    return outs


# --------------------------------------------------------------------------------------------
# contractions, convolutions, pooling, reductions


def matmul(fe, node, x, y, val, c=None, alpha=1, beta=1, bias=None):
    ra, rb = len(x.shape), len(y.shape)
    if ra == 0 or rb == 0:
        raise fe.err(node, "unsupported operator: matmul of a scalar")
    # output shape: broadcast batch dims, then m (a rank >= 2), n (b rank >= 2)
    ba = x.shape[:-2] if ra >= 2 else []
    bb = y.shape[:-2] if rb >= 2 else []
    nb = max(len(ba), len(bb))
    batch = []
    for j in range(nb):
        ja, jb = j - (nb - len(ba)), j - (nb - len(bb))
        sa = ba[ja] if ja >= 0 else sympy.Integer(1)
        sb = bb[jb] if jb >= 0 else sympy.Integer(1)
        batch.append(sa if fe.sizes.value(sa) != 1 else sb)
    shape = batch + ([x.shape[-2]] if ra >= 2 else []) + ([y.shape[-1]] if rb >= 2 else [])
    attrs = {"c": c, "alpha": alpha, "beta": beta, "bias": bias, "math": library_math(fe, "matmul", x.dtype)}
    return _kernel(fe, node, "matmul", [x, y], shape, attrs)


def _einsum_parse(fe, node, eq, xs):
    """(labels of each operand, output labels) of an einsum equation.  The dims an ellipsis
    covers get the labels '.0' (rightmost), '.1', ..., aligned from the right across operands;
    without '->' the output is the ellipsis dims, then the labels used once, in ASCII order
    (uppercase first), as torch.einsum does."""
    eq = eq.replace(" ", "")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(xs):
        raise fe.err(node, f"einsum '{eq}': {len(terms)} operand terms for {len(xs)} operands")

    def split(term, rank, what):
        if term.count("...") > 1 or term.replace("...", "").count("."):
            raise fe.err(node, f"einsum '{eq}': {what} '{term}' is not letters and one '...'")
        pre, ell, post = term.partition("...")
        if not all(c.isalpha() and c.isascii() for c in pre + post):
            raise fe.err(node, f"einsum '{eq}': {what} '{term}' is not letters and one '...'")
        n = rank - len(pre) - len(post) if ell else 0
        if n < 0 or (not ell and len(term) != rank):
            raise fe.err(node, f"einsum '{eq}': {what} '{term}' does not match its rank {rank}")
        return list(pre) + [f".{n - 1 - j}" for j in range(n)] + list(post), n

    labs, nell = [], 0
    for term, x in zip(terms, xs):
        ls, n = split(term, len(x.shape), "operand")
        labs.append(ls)
        nell = max(nell, n)
    ell_out = [f".{nell - 1 - j}" for j in range(nell)]
    if arrow:
        out, _ = split(rhs, len(rhs.replace("...", "")) + (nell if "..." in rhs else 0), "output")
        if len(set(out)) != len(out):
            raise fe.err(node, f"einsum '{eq}': an output label is repeated")
        used = {c for ls in labs for c in ls}
        if any(c not in used for c in out):
            raise fe.err(node, f"einsum '{eq}': an output label appears in no operand")
    else:
        count = {}
        for ls in labs:
            for c in ls:
                count[c] = count.get(c, 0) + 1
        out = ell_out + sorted(c for c, m in count.items() if m == 1 and not c.startswith("."))
    return labs, out


def _einsum_sizes(fe, node, eq, xs, labs):
    """label -> its size expression: an operand's dim of that label whose size is not 1 (a
    size-1 dim broadcasts, as torch.einsum allows), else 1."""
    size = {}
    for x, ls in zip(xs, labs):
        for d, c in zip(x.shape, ls):
            v = fe.sizes.value(d)
            if c not in size or fe.sizes.value(size[c]) == 1:
                size[c] = d
            elif v != 1 and fe.sizes.value(size[c]) != v:
                raise fe.err(node, f"einsum '{eq}': label '{c}' has sizes {fe.sizes.value(size[c])} and {v}")
    return size


def _einsum_plan(labs, out, value):
    """The pairwise contraction order of fewest flops.  Each operand first has the labels no
    other operand and not the output has summed out (one add per element), then pairs are
    contracted, each over the labels nothing later needs (a multiply and an add per point of
    the pair's labels; a multiply only when nothing is summed): opt_einsum's flop count.
    Every order is tried (at most 6 operands), so the AIR's work is at most that of the path
    torch.einsum takes (opt_einsum's, or left to right without it): the bound stays a lower
    bound.  Returns (flops, steps): steps are ('sum', i, keep) and ('pair', i, j, keep) over
    a list where a step's result replaces operand i (and j is removed)."""
    import itertools
    best = [None, None]

    def vol(ls):
        v = 1
        for c in ls:
            v *= value(c)
        return v

    def keep_of(ls, others):
        need = set(out).union(*others) if others else set(out)
        return [c for c in dict.fromkeys(ls) if c in need]

    def presum(cur, steps, cost):
        for i in range(len(cur)):
            others = [cur[j] for j in range(len(cur)) if j != i]
            keep = keep_of(cur[i], others)
            if (len(cur) > 1 or not steps) and len(keep) < len(set(cur[i])):
                cost += vol(set(cur[i]))
                steps = steps + [("sum", i, keep)]
                cur = cur[:i] + [keep] + cur[i + 1:]
        return cur, steps, cost

    def go(cur, steps, cost):
        cur, steps, cost = presum(cur, steps, cost)
        if best[0] is not None and cost >= best[0]:
            return
        if len(cur) == 1:
            best[0], best[1] = cost, steps
            return
        for i, j in itertools.combinations(range(len(cur)), 2):
            others = [cur[m] for m in range(len(cur)) if m not in (i, j)]
            union = list(dict.fromkeys(cur[i] + cur[j]))
            keep = keep_of(union, others)
            nxt = [keep if m == i else cur[m] for m in range(len(cur)) if m != j]
            go(nxt, steps + [("pair", i, j, keep)], cost + vol(union) * (2 if len(keep) < len(union) else 1))
    go([list(ls) for ls in labs], [], 0)
    return best[0], best[1]


def einsum(fe, node, eq, xs, val):
    """torch.einsum (docs/translate.md): one kernel per step of _einsum_plan, or a view when
    one operand is only permuted or has its diagonal taken (torch returns a view there)."""
    if not xs or len(xs) > 6:
        raise fe.err(node, f"unsupported operator aten.einsum with {len(xs)} operands (1 to 6)")
    labs, out = _einsum_parse(fe, node, eq, xs)
    size = _einsum_sizes(fe, node, eq, xs, labs)
    shape = [size[c] for c in out]
    if [fe.sizes.value(d) for d in shape] != [int(d) for d in val.shape]:
        raise fe.err(node, f"einsum '{eq}': internal error: output shape {shape} is not "
                     f"PyTorch's {list(val.shape)}")
    if len(xs) == 1 and set(labs[0]) == set(out):
        x, ls = xs[0], labs[0]
        pos = {c: j for j, c in enumerate(out)}
        return Value(shape, x.dtype, base=x, fn=lambda idx: [idx[pos[c]] for c in ls])
    _, steps = _einsum_plan(labs, out, lambda c: fe.sizes.value(size[c]))
    cur = list(zip(xs, labs))
    dtype = fe.dtype(node)
    r = None
    for k, st in enumerate(steps):
        last = k == len(steps) - 1
        if st[0] == "sum":
            i, keep = st[1], st[2]
            ins = [cur[i]]
        else:
            i, j, keep = st[1], st[2], st[3]
            ins = [cur[i], cur[j]]
        if last:
            keep = out
        contracts = st[0] == "pair" and len(set(ins[0][1] + ins[1][1])) > len(keep)
        attrs = {"labels": [ls for _, ls in ins], "out": list(keep), "size": size,
                 "math": library_math(fe, "einsum", ins[0][0].dtype) if contracts else None}
        r = _kernel(fe, node, "einsum", [x for x, _ in ins], [size[c] for c in keep], attrs,
                    dtype=dtype)
        cur[i] = (r.value, list(keep))
        if st[0] == "pair":
            del cur[st[2]]
    return r


def _ints(v, n, default):
    if v is None or (isinstance(v, (list, tuple)) and len(v) == 0):
        return [default] * n
    if isinstance(v, int):
        return [v] * n
    v = list(v)
    return v * n if len(v) == 1 else v


@functools.lru_cache(maxsize=4096)
def simplified(e):
    """sympy.simplify(e), once per expression: a network's convolutions see the same few
    spatial sizes (DenseNet121's 120 convolutions, 10 sizes), each a nest of floors that takes
    simplify up to a second (docs/benchmarks.md, "Translation time")."""
    return sympy.simplify(e)


def conv(fe, node, name, a, kw, val):
    x, w = V(fe, a[0]), V(fe, a[1])
    b = V(fe, a[2]) if len(a) > 2 and a[2] is not None else None
    nsp = len(x.shape) - 2
    if nsp < 1:
        raise fe.err(node, "unsupported operator: unbatched convolution (add a batch dimension)")
    if name in ("convolution", "_convolution"):
        st, pd, dl, tr, opad, G = a[3], a[4], a[5], a[6], a[7], a[8]
    elif name.startswith("conv_transpose"):
        st = a[3] if len(a) > 3 else 1
        pd = a[4] if len(a) > 4 else 0
        opad = a[5] if len(a) > 5 else 0
        G = a[6] if len(a) > 6 else 1
        dl = a[7] if len(a) > 7 else 1
        tr = True
    else:
        st = a[3] if len(a) > 3 else 1
        pd = a[4] if len(a) > 4 else 0
        dl = a[5] if len(a) > 5 else 1
        G = a[6] if len(a) > 6 else 1
        tr, opad = False, 0
    st, dl, opad = _ints(st, nsp, 1), _ints(dl, nsp, 1), _ints(opad, nsp, 0)
    ks = [fe.sizes.value(s) for s in w.shape[2:]]
    if isinstance(pd, str):
        if pd == "valid":
            pd = [0] * nsp
        else:  # same: PyTorch pads total d*(k-1), the smaller half first
            pd = [dl[j] * (ks[j] - 1) // 2 for j in range(nsp)]
    pd = _ints(pd, nsp, 0)
    shape = [x.shape[0], (w.shape[1] * G if tr else w.shape[0])]
    vshape = [int(s) for s in val.shape]
    for j in range(nsp):
        H, Kk = x.shape[2 + j], w.shape[2 + j]
        if tr:
            e = (H - 1) * st[j] - 2 * pd[j] + dl[j] * (Kk - 1) + opad[j] + 1
        else:
            e = fdiv(H + 2 * pd[j] - dl[j] * (Kk - 1) - 1, st[j]) + 1
        if fe.sizes.value(e) != vshape[2 + j]:
            e = sympy.Integer(vshape[2 + j])
            fe.sizes.freeze_syms(H)
        shape.append(simplified(e) if not isinstance(e, sympy.Integer) else e)
    if tr and G > 1:
        fe.sizes.freeze_syms(w.shape[1])
    attrs = {"bias": b, "stride": st, "padding": pd, "dilation": dl, "groups": G,
             "transposed": bool(tr), "math": library_math(fe, "conv", x.dtype)}
    return _kernel(fe, node, "conv", [x, w], shape, attrs)


def pool(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    nsp = int(name[name.index("pool") + 4])
    ks = _ints(a[1], nsp, 1)
    st = _ints(a[2] if len(a) > 2 else None, nsp, None)
    st = [s if s is not None else k for s, k in zip(st, ks)]
    pd = _ints(a[3] if len(a) > 3 else 0, nsp, 0)
    kind = "max" if "max" in name else "avg"
    if kind == "max":
        dl = _ints(a[4] if len(a) > 4 else 1, nsp, 1)
        ceil = a[5] if len(a) > 5 else False
        cip, div = True, None
    else:
        dl = [1] * nsp
        ceil = a[4] if len(a) > 4 else False
        cip = a[5] if len(a) > 5 else True
        div = a[6] if len(a) > 6 else None
    vv = val[0] if isinstance(val, (list, tuple)) else val
    vshape = [int(s) for s in vv.shape]
    lead = len(x.shape) - nsp
    shape = list(x.shape[:lead])
    for j in range(nsp):
        H = x.shape[lead + j]
        e = fdiv(H + 2 * pd[j] - dl[j] * (ks[j] - 1) - 1, st[j]) + 1
        if fe.sizes.value(e) != vshape[lead + j]:
            e = sympy.Integer(vshape[lead + j])
            fe.sizes.freeze_syms(H)
        shape.append(e)
    attrs = {"kind": kind, "kernel": ks, "stride": st, "padding": pd, "dilation": dl,
             "ceil_mode": ceil, "count_include_pad": cip, "divisor_override": div}
    r = _kernel(fe, node, "pool", [x], shape, attrs, dtype=fe.dtype(node, vv))
    if isinstance(val, (list, tuple)):
        if _no_indices(fe, node):
            # a training step's backward reads them (torch_backward.max_pool_backward): the
            # kernel writes them as PyTorch's does, each the flat position in the input plane
            idx = fe.new_out(node, shape, r.op.name + "_indices", "i64")
            r.op.attrs["indices"] = idx
            return [r.value, idx]
        return [r.value, None]
    return r


def reduce_(fe, node, op, x, dims, keep, vv, f=None, ins=None, correction=1, post=None, dtype=None):
    r = len(x.shape)
    dims = sorted({_nd(d, r) for d in dims}) if dims else list(range(r))
    if keep:
        shape = [sympy.Integer(1) if d in dims else x.shape[d] for d in range(r)]
    else:
        shape = [x.shape[d] for d in range(r) if d not in dims]
    attrs = {"shape": list(x.shape), "dims": dims, "keepdim": keep, "op": op,
             "correction": correction}
    if f is not None:
        attrs["f"] = f
    if post is not None:
        attrs["post"] = post
    return _kernel(fe, node, "reduce", ins or [x], shape, attrs, dtype=dtype or fe.dtype(node, vv))


def reduction(fe, node, name, a, kw, val):
    x = V(fe, a[0])
    if name in ("max", "min"):          # the full reduction (no dim): values only
        return reduce_(fe, node, "amax" if name == "max" else "amin", x, [], False, val)
    dims = a[1] if len(a) > 1 else kw.get("dim")
    if name in ("norm", "linalg_vector_norm"):
        p = a[1] if len(a) > 1 else kw.get("ord", kw.get("p", 2))
        dims = a[2] if len(a) > 2 else kw.get("dim")
        keep = a[3] if len(a) > 3 else kw.get("keepdim", False)
        if p not in (1, 2, 2.0, 1.0):
            raise fe.err(node, f"unsupported operator {fe.aten(node)} with ord {p}")
        dims = [dims] if isinstance(dims, int) else (list(dims) if dims else [])
        if p in (2, 2.0):
            return reduce_(fe, node, "sum", x, dims, keep, val, f=lambda v, i: f"{v[0]} * {v[0]}",
                           post=lambda s: f"sqrt({s})")
        return reduce_(fe, node, "sum", x, dims, keep, val, f=lambda v, i: f"abs({v[0]})")
    if isinstance(dims, int):
        dims = [dims]
    dims = list(dims) if dims else []
    keep = a[2] if len(a) > 2 and isinstance(a[2], bool) else kw.get("keepdim", False)
    if name in ("var", "std"):
        corr = kw.get("correction")
        if corr is None:
            unb = a[2] if len(a) > 2 and isinstance(a[2], bool) else kw.get("unbiased", True)
            corr = 1 if unb else 0
            keep = a[3] if len(a) > 3 else kw.get("keepdim", False)
        return reduce_(fe, node, name, x, dims, keep, val, correction=corr)
    op = {"nansum": "sum"}.get(name, name)
    return reduce_(fe, node, op, x, dims, keep, val)


def loss(fe, node, name, a, kw, val):
    x, y = V(fe, a[0]), V(fe, a[1])
    red = a[2] if len(a) > 2 and isinstance(a[2], int) else kw.get("reduction", 1)
    fs = {
        "mse_loss": lambda v, i: f"({v[0]} - {v[1]}) * ({v[0]} - {v[1]})",
        "l1_loss": lambda v, i: f"abs({v[0]} - {v[1]})",
        "soft_margin_loss": lambda v, i: f"log(1.0 + exp(-({v[1]}) * {v[0]}))",
        "binary_cross_entropy": lambda v, i: (f"-({v[1]} * max(log({v[0]}), -100.0) + (1.0 - {v[1]}) * "
                                              f"max(log(1.0 - {v[0]}), -100.0))"),
    }
    if name in ("smooth_l1_loss", "huber_loss"):
        beta = a[3] if len(a) > 3 else kw.get("beta", kw.get("delta", 1.0))
        if name == "smooth_l1_loss":
            f = lambda v, i: (f"select(abs({v[0]} - {v[1]}) < {flit(beta)}, 0.5 * ({v[0]} - {v[1]}) * "
                              f"({v[0]} - {v[1]}) / {flit(beta)}, abs({v[0]} - {v[1]}) - {flit(0.5 * beta)})")
        else:
            f = lambda v, i: (f"select(abs({v[0]} - {v[1]}) < {flit(beta)}, 0.5 * ({v[0]} - {v[1]}) * "
                              f"({v[0]} - {v[1]}), {flit(beta)} * (abs({v[0]} - {v[1]}) - {flit(0.5 * beta)}))")
    elif name == "kl_div":
        log_target = a[3] if len(a) > 3 else kw.get("log_target", False)
        if log_target:
            f = lambda v, i: f"exp({v[1]}) * ({v[1]} - {v[0]})"
        else:
            f = lambda v, i: f"select({v[1]} > 0, {v[1]} * (log({v[1]}) - {v[0]}), 0.0)"
    elif name == "hinge_embedding_loss":
        margin = a[2] if len(a) > 2 else kw.get("margin", 1.0)
        red = a[3] if len(a) > 3 else kw.get("reduction", 1)
        f = lambda v, i: (f"select({v[1]} == 1, {v[0]}, 0.0) + select({v[1]} == -1, "
                          f"max({flit(margin)} - {v[0]}, 0.0), 0.0)")
    else:
        f = fs[name]
    if name == "binary_cross_entropy":
        red = a[3] if len(a) > 3 else kw.get("reduction", 1)
    shape = fe.generic_shape(node, [x, y]) if red == 0 else None
    if red == 0:
        return _kernel(fe, node, "pointwise", [x, y], shape, {"f": f})
    # broadcast x and y to a common shape for the reduction
    full = x if len(x.shape) >= len(y.shape) else y
    return reduce_(fe, node, "mean" if red == 1 else "sum", full, [], False, val, f=f, ins=[x, y])


def cosine(fe, node, a, kw, val):
    x, y = V(fe, a[0]), V(fe, a[1])
    d = a[2] if len(a) > 2 else kw.get("dim", 1)
    eps = a[3] if len(a) > 3 else kw.get("eps", 1e-8)
    full = x if len(x.shape) >= len(y.shape) else y
    d = _nd(d, len(full.shape))
    # one kernel: the dot product and the two squared norms, then the quotient
    return _kernel(fe, node, "cosine", [x, y], [full.shape[j] for j in range(len(full.shape)) if j != d],
                   {"dim": d, "eps": eps, "shape": list(full.shape)})


# --------------------------------------------------------------------------------------------
# random numbers in forward (docs/translate.md, "Random numbers"): each random call draws into
# a `rand` tensor of its own (docs/air.md), declared in the order forward draws (the order in
# which validate's harness serves its fixed draws), and one pointwise kernel computes the
# call's result from the draws, as PyTorch's generator kernel writes it.

RANDOM = ("rand", "rand_like", "randn", "randn_like", "randint", "bernoulli", "normal", "uniform")


def rand_value(fe, node, shape, dist, dtype="f32"):
    """A fresh `rand` tensor of the given shape and distribution ('uniform' in [0, 1), or
    'normal'), f32 (f64 for an f64 result, as PyTorch draws doubles), as a Value."""
    dtype = "f64" if dtype == "f64" else "f32"
    t = Tensor(fe.tname(("u_" if dist == "uniform" else "z_") + fe.short(node)), shape, dtype,
               "rand")
    t.dist = dist
    t.comment = f"the draws of {fe.aten(node)}"
    fe.g.add_tensor(t)
    return Value(shape, dtype, tensor=t)


def _affine_of(mul, add, x):
    """AIR text of add + mul * x, leaving out a 0 and a 1."""
    s = x if mul == 1 else f"{flit(mul)} * {x}"
    return s if add == 0 else f"{flit(add)} + {s}"


def dropout_train(fe, node, name, x, p, val):
    """dropout / native_dropout with 0 < p in training mode: out = x / (1 - p) where the
    uniform draw u < 1 - p, else 0 (one kernel, as PyTorch's fused dropout); native_dropout's
    bool mask (u < 1 - p) is a kernel of its own when forward uses it."""
    outs = val if isinstance(val, (list, tuple)) else [val]
    keep = 1.0 - p
    if keep <= 0:
        r = _kernel(fe, node, "pointwise", [x], list(x.shape), {"f": lambda v, i: f"{v[0]} * 0.0"},
                    dtype=fe.dtype(node, outs[0]))
        u = None
    else:
        u = rand_value(fe, node, list(x.shape), "uniform", x.dtype)
        r = _kernel(fe, node, "pointwise", [u, x], list(x.shape),
                    {"f": lambda v, i: f"select({v[0]} < {flit(keep)}, {v[1]} * {flit(1 / keep)}, 0.0)"},
                    dtype=fe.dtype(node, outs[0]))
    if name != "native_dropout":
        return r
    used = [n for n in node.users if n.target is operator.getitem and n.args[1] == 1 and n.users]
    mask = None
    if used:
        f = (lambda v, i: f"{v[0]} < {flit(keep)}") if u is not None else (lambda v, i: "0")
        mask = _kernel(fe, node, "pointwise", [u] if u is not None else [], list(x.shape),
                       {"f": f}, dtype="bool").value
    return [r.value, mask]


def random_op(fe, node, name, a, kw, val):
    """rand, randn (and _like), randint, bernoulli (and _), normal_ / normal(float, float,
    size), uniform_: a rand tensor and the kernel that computes the call's result from it."""
    dt = fe.dtype(node)
    if name in ("rand_like", "randn_like") or (name in ("bernoulli", "normal", "uniform")
                                               and hasattr(a[0], "op")):
        shape = list(V(fe, a[0]).shape)
    else:
        shape = fe.generic_shape(node, [])
    if name == "randint":
        ints = [x for x in a if isinstance(x, int)]
        lo, hi = (0, ints[0]) if len(ints) < 2 else (ints[0], ints[1])
        u = rand_value(fe, node, shape, "uniform", dt)
        f = lambda v, i: (f"{lo} + " if lo else "") + f"({v[0]} * {flit(hi - lo)}) // 1.0"  # noqa: E731
        return _kernel(fe, node, "pointwise", [u], shape, {"f": f}, dtype=dt)
    if dt not in ("f32", "f64", "bf16", "f16"):
        raise fe.err(node, f"unsupported operator aten.{name} of dtype {dt} (random floats only)")
    if name == "bernoulli":
        p = a[1] if len(a) > 1 else kw.get("p", a[0] if node.target._overloadpacket.__name__
                                             == "bernoulli" else 0.5)
        u = rand_value(fe, node, shape, "uniform", dt)
        if hasattr(p, "op"):
            return _kernel(fe, node, "pointwise", [u, V(fe, p)], shape,
                           {"f": lambda v, i: f"{v[0]} < {v[1]}"}, dtype=dt)
        return _kernel(fe, node, "pointwise", [u], shape,
                       {"f": lambda v, i: f"{v[0]} < {flit(p)}"}, dtype=dt)
    if name == "uniform":
        lo = a[1] if len(a) > 1 else kw.get("from", 0.0)
        hi = a[2] if len(a) > 2 else kw.get("to", 1.0)
        u = rand_value(fe, node, shape, "uniform", dt)
        return _kernel(fe, node, "pointwise", [u], shape,
                       {"f": lambda v, i: _affine_of(hi - lo, lo, v[0])}, dtype=dt)
    if name == "normal":
        nums = a[1:] if hasattr(a[0], "op") else a[:2]
        if any(hasattr(x, "op") for x in nums) or not all(isinstance(x, (int, float)) for x in nums):
            raise fe.err(node, f"unsupported operator {fe.aten(node)} (a tensor mean or std)")
        mean = kw.get("mean", nums[0] if nums else 0.0)
        std = kw.get("std", nums[1] if len(nums) > 1 else 1.0)
        z = rand_value(fe, node, shape, "normal", dt)
        return _kernel(fe, node, "pointwise", [z], shape,
                       {"f": lambda v, i: _affine_of(std, mean, v[0])}, dtype=dt)
    dist = "normal" if name.startswith("randn") else "uniform"
    u = rand_value(fe, node, shape, dist, dt)
    return _kernel(fe, node, "pointwise", [u], shape, {"f": lambda v, i: v[0]}, dtype=dt)


# recurrent layers

RNN_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def rnn(fe, node, name, a, val):
    """nn.LSTM (also with proj_size), nn.GRU, nn.RNN (aten.lstm/gru/rnn_tanh/rnn_relu.input: the
    input, the initial state, the flat weight list of every layer and direction, has_biases,
    num_layers, dropout, train, bidirectional, batch_first): one `rnn` kernel for the whole
    call, as cuDNN's cudnnRNNForward is one library call (docs/bounds.md, rule "recurrent
    layers"); it writes the output sequence and, when forward uses them, h_n (and c_n)."""
    if node.target._overloadname != "input":
        raise fe.err(node, f"unsupported operator {fe.aten(node)}",
                     "a packed sequence (nn.utils.rnn.pack_padded_sequence) has data-dependent "
                     "lengths; pass a padded tensor")
    x = V(fe, a[0])
    hx = [V(fe, h) for h in a[1]] if isinstance(a[1], (list, tuple)) else [V(fe, a[1])]
    params = [V(fe, p) for p in a[2]]
    has_b, L, p, train, bidi, bf = a[3:9]
    D = 2 if bidi else 1
    if len(x.shape) != 3:
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with an unbatched input "
                     f"(rank {len(x.shape)}); add a batch dimension")
    if p and train and L > 1:
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with dropout={p} in training "
                     "mode (random numbers between layers; eval() or dropout=0 is exact)")
    # per layer and direction: weight_ih, weight_hh[, bias_ih, bias_hh][, weight_hr] (an LSTM
    # with proj_size projects o * tanh(c) from H down to P, PyTorch's and cuDNN's order)
    per = 2 + 2 * bool(has_b)
    proj = name == "lstm" and len(params) == L * D * (per + 1)
    if len(params) != L * D * (per + proj):
        raise fe.err(node, f"internal error: {fe.aten(node)} has {len(params)} weights for "
                     f"{L} layers and {D} directions")
    per += proj
    for h in hx:     # one block of code per layer and direction: their number is fixed
        fe.sizes.freeze_syms(h.shape[0])
    G = RNN_GATES[name]
    P = params[1].shape[1]                     # weight_hh_l0: [G*H, P]; P = H without proj_size
    H = params[per - 1].shape[1] if proj else P    # weight_hr_l0: [P, H]
    B, T = (x.shape[0], x.shape[1]) if bf else (x.shape[1], x.shape[0])
    weights = []
    for l in range(L):
        row = []
        for d in range(D):
            w = params[(l * D + d) * per:(l * D + d + 1) * per]
            row.append((w[0], w[1], w[2] if has_b else None, w[3] if has_b else None,
                        w[-1] if proj else None))
            if fe.sizes.value(w[1].shape[0]) != G * fe.sizes.value(H):
                raise fe.err(node, f"internal error: {fe.aten(node)} weight_hh of layer {l} has "
                             f"{fe.sizes.value(w[1].shape[0])} rows, not {G} x {fe.sizes.value(H)}")
        weights.append(row)
    seq_shape = ([B, T] if bf else [T, B]) + [D * P if D > 1 else P]
    state_shape = [sympy.Integer(L * D), B, P]
    vals = list(val)
    used = {u.args[1] for u in node.users if u.target is operator.getitem and u.users}
    attrs = {"mode": name, "layers": L, "dirs": D, "batch_first": bool(bf), "H": H, "P": P, "T": T,
             "B": B, "weights": weights, "h0": hx[0], "c0": hx[1] if len(hx) > 1 else None,
             "math": library_math(fe, "rnn", x.dtype)}
    for k, key in ((1, "h_n"), (2, "c_n")):
        if k in used:     # c_n keeps the cell's size H
            attrs[key] = fe.new_out(node, state_shape[:2] + [H if k == 2 else P],
                                    fe.short(node) + "_" + key, fe.dtype(node, vals[k]))
    r = _kernel(fe, node, "rnn", [x] + hx + [w for row in weights for ws in row for w in ws
                                             if w is not None],
                seq_shape, attrs, dtype=fe.dtype(node, vals[0]))
    for v, want in zip([r.value] + [attrs.get(k) for k in ("h_n", "c_n")], vals):
        if v is not None and [fe.sizes.value(e) for e in v.shape] != [int(s) for s in want.shape]:
            raise fe.err(node, f"internal error: {fe.aten(node)} result shape "
                         f"{[fe.sizes.value(e) for e in v.shape]} is not PyTorch's {list(want.shape)}")
    return [r.value, attrs.get("h_n"), attrs.get("c_n")][:len(vals)]


# --------------------------------------------------------------------------------------------
# The dispatch table: which handler serves each ATen name (_dispatch).  The families are in the
# order of the if-chain this table replaced, and a name is in one family only (_table refuses
# another), so no order is left to matter.  Where two tests of that chain matched one name, the
# first had won, and the name now is in its family alone: dropout, feature_dropout and
# alpha_dropout are DROPOUTS' (VIEWS listed them too), and rand, rand_like, randn, randn_like
# and randint are RANDOM's (creation listed them too, to refuse them).  max, min and diag,
# whose handler depends on more than the name, are in GUARDED only (max and min had three tests
# in the chain, diag one; diag of a matrix is an unknown operator, as before).

DROPOUTS = ("dropout", "feature_dropout", "alpha_dropout", "native_dropout")
# the pointwise operators pointwise_f builds beyond UNARY and BINARY (their own arguments)
POINTWISE = tuple(UNARY) + tuple(BINARY) + (
    "add", "sub", "rsub", "div", "gelu", "leaky_relu", "elu", "celu", "hardtanh", "softplus",
    "threshold", "clamp", "clip", "clamp_min", "clamp_max", "where", "masked_fill", "addcmul",
    "addcdiv", "lerp", "triu", "tril", "fill", "zero") + tuple(torch_backward.POINTWISE)
FAMILIES = (
    (DROPOUTS, dropout),
    (VIEWS, view),
    (("broadcast_tensors",), broadcast_tensors),
    (("split", "split_with_sizes", "chunk", "unbind", "tensor_split"), splits),
    (POINTWISE, pointwise),
    (("to", "_to_copy", "type_as", "clone", "copy"), cast_copy),
    (RANDOM, random_op),
    (("zeros", "ones", "full", "empty", "zeros_like", "ones_like", "full_like", "empty_like",
      "new_zeros", "new_ones", "new_full", "new_empty", "scalar_tensor", "empty_strided"),
     creation),
    (("arange",), arange),
    (("mm", "bmm", "matmul", "mv", "dot", "vdot"), mm),
    (("addmm", "baddbmm", "addmv"), addmm),
    (("einsum",), einsum_call),
    (("linear",), linear),
    (("conv1d", "conv2d", "conv3d", "convolution", "_convolution", "conv_transpose1d",
      "conv_transpose2d", "conv_transpose3d"), conv),
    (("max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices",
      "max_pool3d_with_indices", "max_pool1d_with_indices", "avg_pool1d", "avg_pool2d",
      "avg_pool3d"), pool),
    (("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
      "_adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d",
      "adaptive_max_pool3d"), adaptive_pool),
    (("softmax", "_softmax", "log_softmax", "_log_softmax", "_safe_softmax"), softmax),
    (("layer_norm", "native_layer_norm", "rms_norm"), layer_norm),
    (("batch_norm", "_native_batch_norm_legit_no_training", "native_batch_norm",
      "_native_batch_norm_legit"), batch_norm),
    (("group_norm", "native_group_norm"), group_norm),
    (("instance_norm",), instance_norm),
    (("sum", "mean", "amax", "amin", "prod", "var", "std", "norm", "linalg_vector_norm",
      "nansum", "logsumexp"), reduction),
    (("flip",), flip),
    (("cumsum", "cumprod"), cumsum),
    (("cat", "concat", "concatenate", "stack"), cat),
    (("repeat", "roll", "tile", "repeat_interleave"),
     lambda fe, node, name, a, kw, val: repeat_roll(fe, node, name, V(fe, a[0]), a, kw)),
    (("pad", "constant_pad_nd"), pad),
    (("scaled_dot_product_attention", "_scaled_dot_product_flash_attention",
      "_scaled_dot_product_efficient_attention"), sdpa),
    (("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "soft_margin_loss",
      "binary_cross_entropy", "kl_div", "hinge_embedding_loss"), loss),
    (("cosine_similarity",), lambda fe, node, name, a, kw, val: cosine(fe, node, a, kw, val)),
    (("im2col",), lambda fe, node, name, a, kw, val: im2col(fe, node, V(fe, a[0]), a, kw, val)),
    (("argmax", "argmin"), argmax),
    (("lstm", "gru", "rnn_tanh", "rnn_relu"),
     lambda fe, node, name, a, kw, val: rnn(fe, node, name, a, val)),
) + torch_index.FAMILIES + torch_backward.FAMILIES  # indexing with data (AIR 1.1), backward
# (names, test(fe, a, val), handler): the first whose names hold the call's and whose test
# passes serves it; the tests in the order of the chain's
GUARDED = (
    (("max", "min"), lambda fe, a, val: isinstance(val, (tuple, list)), max_min_indices),
    (("max", "min"), lambda fe, a, val: len(a) == 2 and hasattr(a[1], "op"), max_min_binary),
    (("max", "min"), lambda fe, a, val: True, reduction),   # the full reduction (no dim)
    (("diag",), is_vector_diag, diag_matrix),
)


def _table(families, guarded):
    """name -> handler of families, refusing a name in two families or in guarded too (the
    order of the dict and of the guarded tests would then decide which one serves it)."""
    table = {}
    for names, h in families:
        for n in names:
            if n in table:
                raise AssertionError(f"aten.{n} is in two families of torch_ops.FAMILIES")
            table[n] = h
    for names, _, _ in guarded:
        for n in names:
            if n in table:
                raise AssertionError(f"aten.{n} is in torch_ops.FAMILIES and in GUARDED")
    return table


HANDLERS = _table(FAMILIES, GUARDED)
