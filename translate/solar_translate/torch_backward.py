"""The backward ATen operators of a training step (train.py) and how each maps onto the op
graph: the pointwise *_backward operators as pointwise kernels (formulas of
tools/autograd/derivatives.yaml and aten/src/ATen/native), and the library kernels that stay
whole: _softmax_backward_data and _log_softmax_backward_data (one kernel: a row reduction, then
the output), native_layer_norm_backward (two kernels, as PyTorch's CUDA implementation launches:
the input's gradient, then the weight's and the bias's; docs/translate.md, "Training steps")."""
import math

import sympy

from .emit_air import _val, flit

_SQRT1_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327
_K0 = 0.7978845608028654          # sqrt(2 / pi)


def _gelu_backward(g, x, approximate):
    if approximate == "tanh":
        inner = f"{flit(_K0)} * ({x} + 0.044715 * {x} * {x} * {x})"
        t = f"tanh({inner})"
        return (f"{g} * (0.5 * (1.0 + {t}) + 0.5 * {x} * (1.0 - {t} * {t}) * {flit(_K0)}"
                f" * (1.0 + 0.134145 * {x} * {x}))")
    return (f"{g} * (0.5 * (1.0 + erf({x} * {flit(_SQRT1_2)})) + {x} * {flit(_INV_SQRT_2PI)}"
            f" * exp(-0.5 * {x} * {x}))")


def _arg(a, kw, i, name, default):
    return a[i] if len(a) > i else kw.get(name, default)


# name -> (operand positions, f(values, args, kwargs) -> AIR expression)
POINTWISE = {
    "threshold_backward": ((0, 1), lambda v, a, kw: f"select({v[1]} > {flit(a[2])}, {v[0]}, 0.0)"),
    "gelu_backward": ((0, 1), lambda v, a, kw: _gelu_backward(v[0], v[1], _arg(a, kw, 2, "approximate", "none"))),
    "sigmoid_backward": ((0, 1), lambda v, a, kw: f"{v[0]} * (1.0 - {v[1]}) * {v[1]}"),
    "tanh_backward": ((0, 1), lambda v, a, kw: f"{v[0]} * (1.0 - {v[1]} * {v[1]})"),
    "silu_backward": ((0, 1), lambda v, a, kw: f"{v[0]} * sigmoid({v[1]}) * (1.0 + {v[1]} * (1.0 - sigmoid({v[1]})))"),
    "native_dropout_backward": ((0, 1), lambda v, a, kw: f"select({v[1]}, {v[0]} * {flit(a[2])}, 0.0)"),
    "leaky_relu_backward": ((0, 1), lambda v, a, kw: f"select({v[1]} > 0.0, {v[0]}, {v[0]} * {flit(a[2])})"),
    "hardtanh_backward": ((0, 1), lambda v, a, kw: f"select({v[1]} <= {flit(a[2])} or {v[1]} >= {flit(a[3])}, 0.0, {v[0]})"),
    "hardswish_backward": ((0, 1), lambda v, a, kw: f"select({v[1]} < -3.0, 0.0, select({v[1]} <= 3.0, {v[0]} * ({v[1]} / 3.0 + 0.5), {v[0]}))"),
    "hardsigmoid_backward": ((0, 1), lambda v, a, kw: f"select({v[1]} > -3.0 and {v[1]} < 3.0, {v[0]} / 6.0, 0.0)"),
    "softplus_backward": ((0, 1), lambda v, a, kw: (
        f"select({v[1]} * {flit(a[2])} > {flit(a[3])}, {v[0]}, {v[0]} * sigmoid({v[1]} * {flit(a[2])}))")),
}


def pointwise_f(name, a, kw):
    """(operands, f) of a pointwise backward operator, as torch_ops.pointwise_f returns."""
    pos, g = POINTWISE[name]
    return [a[i] for i in pos], lambda v, i: g(v, a, kw)


def softmax_backward(fe, node, name, a, kw, val):
    from .torch_ops import V, _kernel, _nd
    g, y = V(fe, a[0]), V(fe, a[1])
    d = _nd(a[2], len(y.shape))
    return _kernel(fe, node, "softmax_backward", [g, y], list(y.shape),
                   {"dim": d, "log": "log" in name})


def forward_eps(x, op, pos):
    """The eps of the forward norm op (an ATen name) that normalised the graph node x: its
    argument at pos (PyTorch's default 1e-5 where it is not given)."""
    fwd = [n for n in x.users if n.op == "call_function" and op in str(n.target)
           and "backward" not in str(n.target)]
    return fwd[0].args[pos] if fwd and len(fwd[0].args) > pos else 1e-5


def layer_norm_backward(fe, node, name, a, kw, val):
    """native_layer_norm_backward(grad, input, normalized_shape, mean, rstd, weight, bias,
    output_mask) -> (d input, d weight, d bias): the input's gradient in one kernel, the
    weight's and bias's in another.  Both recompute the row statistics from the input (the
    kernels read the input whole anyway, so no byte more moves; the forward's mean and rstd
    are not kept as tensors by the translation)."""
    from .torch_ops import V, _kernel
    g, x = V(fe, a[0]), V(fe, a[1])
    nshape, w, b = a[2], V(fe, a[5]), V(fe, a[6])
    mask = list(a[7]) if len(a) > 7 else [True, True, True]
    eps = forward_eps(a[1], "native_layer_norm", 4)
    nd = len(nshape)
    outs = [None, None, None]
    vals = list(val)
    if mask[0] and vals[0] is not None:
        outs[0] = _kernel(fe, node, "layer_norm_backward", [g, x], list(x.shape),
                          {"ndims": nd, "weight": w, "eps": eps, "part": "input"},
                          dtype=fe.dtype(node, vals[0])).value
    if (mask[1] and w is not None and vals[1] is not None) or (mask[2] and b is not None and vals[2] is not None):
        pshape = list(x.shape[len(x.shape) - nd:])
        dw = fe.new_out(node, pshape, "dweight", fe.dtype(node, vals[1] if vals[1] is not None else vals[2]))
        db = fe.new_out(node, pshape, "dbias", fe.dtype(node, vals[2] if vals[2] is not None else vals[1]))
        r = _kernel(fe, node, "layer_norm_backward", [g, x], pshape,
                    {"ndims": nd, "eps": eps, "part": "params",
                     "dweight": dw if mask[1] and vals[1] is not None else None,
                     "dbias": db if mask[2] and vals[2] is not None else None},
                    dtype=fe.dtype(node, vals[1] if vals[1] is not None else vals[2]))
        fe.g.tensors.remove(r.value.root().tensor)   # the kernel writes dweight and dbias
        r.op.out = dw if r.op.attrs["dweight"] is not None else db
        outs[1] = dw if r.op.attrs["dweight"] is not None else None
        outs[2] = db if r.op.attrs["dbias"] is not None else None
    return outs


def group_norm_backward(fe, node, name, a, kw, val):
    """native_group_norm_backward(grad, input, mean, rstd, weight, N, C, HxW, group,
    output_mask) -> (d input, d weight, d bias): as layer norm's, two kernels (the input's
    gradient, then the weight's and the bias's), each recomputing the groups' statistics."""
    from .torch_ops import V, _kernel
    g, x = V(fe, a[0]), V(fe, a[1])
    w = V(fe, a[4]) if a[4] is not None else None
    G, mask = a[8], list(a[9])
    eps = forward_eps(a[1], "native_group_norm", 7)
    vals = list(val)
    outs = [None, None, None]
    attrs = {"groups": G, "eps": eps}
    if mask[0] and vals[0] is not None:
        outs[0] = _kernel(fe, node, "group_norm_backward", [g, x], list(x.shape),
                          dict(attrs, part="input", weight=w), dtype=fe.dtype(node, vals[0])).value
    want = [mask[i] and vals[i] is not None for i in (1, 2)]
    if any(want):
        C = [x.shape[1]]
        dt = fe.dtype(node, vals[1] if want[0] else vals[2])
        dw = fe.new_out(node, C, "dweight", dt) if want[0] else None
        db = fe.new_out(node, C, "dbias", fe.dtype(node, vals[2])) if want[1] else None
        r = _kernel(fe, node, "group_norm_backward", [g, x], C,
                    dict(attrs, part="params", dweight=dw, dbias=db), dtype=dt)
        fe.g.tensors.remove(r.value.root().tensor)   # the kernel writes dweight and dbias
        r.op.out = dw if dw is not None else db
        outs[1], outs[2] = dw, db
    return outs


def _numel(shape):
    n = sympy.Integer(1)
    for e in shape:
        n *= e
    return n


def mse_loss_backward(fe, node, name, a, kw, val):
    """mse_loss_backward(grad, input, target, reduction) -> d input = 2 (input - target) * grad,
    over the input's elements for the mean (PyTorch's formula, torch/_decomp)."""
    from .torch_ops import V, _kernel
    g, x, y = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    red = _arg(a, kw, 3, "reduction", 1)
    norm = f"2.0 / {_val(_numel(x.shape))}" if red == 1 else "2.0"
    return _kernel(fe, node, "pointwise", [g, x, y], fe.generic_shape(node, [x, y]),
                   {"f": lambda v, i: f"{norm} * ({v[1]} - {v[2]}) * {v[0]}"},
                   dtype=fe.dtype(node))


def nll_loss_backward(fe, node, name, a, kw, val):
    """nll_loss_backward(grad, logp, target, weight, reduction, ignore_index, total_weight) ->
    d logp: -grad at each target's class (over the targets' count for the mean), 0 elsewhere:
    one pointwise kernel that compares each class with its target (cross_entropy's backward
    is this, then _log_softmax_backward_data).  Class weights, and an ignore_index among the
    classes with the mean (its count is data), are refused."""
    from .opgraph import Value
    from .torch_ops import V, _kernel, pr
    g, x, t = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    w, red, ig = a[3], a[4], a[5]
    cd = 1 if len(x.shape) >= 2 else 0
    ign = ig is not None and 0 <= ig < fe.sizes.value(x.shape[cd])
    if w is not None or (ign and red == 1):
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with "
                     f"{'class weights' if w is not None else 'an ignore_index among the classes'}",
                     "with --train only the plain mean or sum over class-index targets is "
                     "translated yet")
    shape = list(x.shape)
    drop = lambda ix: ix[:cd] + ix[cd + 1:]                          # noqa: E731
    tv = Value(shape, t.dtype, base=t, fn=drop)
    gv = Value(shape, g.dtype, base=g, fn=drop) if red == 0 else g
    scale = f" / {_val(_numel(t.shape))}" if red == 1 else ""
    keep = f" and {{t}} != {ig}" if ign else ""

    def f(v, i):
        hit = f"{v[1]} == {pr(i[cd])}" + keep.format(t=v[1])
        return f"select({hit}, -{v[0]}{scale}, 0.0)"
    return _kernel(fe, node, "pointwise", [gv, tv], shape, {"f": f}, dtype=fe.dtype(node))


def conv_backward(fe, node, name, a, kw, val):
    """convolution_backward(grad, input, weight, bias_sizes, stride, padding, dilation,
    transposed, output_padding, groups, output_mask) -> (d input, d weight, d bias): the three
    kernels cuDNN runs: the input's gradient (a transposed convolution of the gradient with
    the weight), the weight's (the gradient correlated with the input), the bias's (a sum)."""
    from .library_math import library_math
    from .torch_ops import V, _ints, _kernel, reduce_
    g, x, w = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    st, pd, dl, tr, G = a[4], a[5], a[6], a[7], a[9]
    mask = list(a[10])
    nsp = len(x.shape) - 2
    st, pd, dl = _ints(st, nsp, 1), _ints(pd, nsp, 0), _ints(dl, nsp, 1)
    attrs = {"bias": None, "stride": st, "padding": pd, "dilation": dl, "groups": G,
             "math": library_math(fe, "conv", x.dtype)}
    outs = [None, None, None]
    vals = list(val)
    # a transposed convolution's backward swaps the roles: its input's gradient is a plain
    # convolution of the gradient with the weight, its weight's the input correlated with
    # the gradient
    if mask[0] and vals[0] is not None:
        outs[0] = _kernel(fe, node, "conv", [g, w], list(x.shape), dict(attrs, transposed=not tr),
                          dtype=fe.dtype(node, vals[0])).value
    if mask[1] and vals[1] is not None:
        outs[1] = _kernel(fe, node, "conv_weight_grad", [x, g] if tr else [g, x], list(w.shape),
                          dict(attrs), dtype=fe.dtype(node, vals[1])).value
    if mask[2] and vals[2] is not None:
        outs[2] = reduce_(fe, node, "sum", g, [0] + list(range(2, 2 + nsp)), False, vals[2]).value
    return outs


def max_pool_backward(fe, node, name, a, kw, val):
    """max_pool{1,2,3}d_with_indices_backward(grad, input, kernel, stride, padding, dilation,
    ceil_mode, indices): the gradient goes to the position the forward's indices name (the
    forward kernel writes them, as PyTorch's does in training)."""
    from .torch_ops import V, _ints, _kernel
    g, x, idx = V(fe, a[0]), V(fe, a[1]), V(fe, a[7])
    nsp = int(name[name.index("pool") + 4])
    ks = _ints(a[2], nsp, 1)
    st = _ints(a[3] if a[3] else None, nsp, None)
    st = [s if s is not None else k for s, k in zip(st, ks)]
    pd, dl = _ints(a[4], nsp, 0), _ints(a[5], nsp, 1)
    return _kernel(fe, node, "pool_backward", [g, idx], list(x.shape),
                   {"kind": "max", "kernel": ks, "stride": st, "padding": pd, "dilation": dl,
                    "ceil_mode": a[6]}, dtype=fe.dtype(node))


def batch_norm_backward(fe, node, name, a, kw, val):
    """native_batch_norm_backward(grad, input, weight, running_mean, running_var, save_mean,
    save_invstd, train, eps, output_mask): the two kernels PyTorch's CUDA implementation runs, the per-channel sums (batch_norm_backward_reduce: the statistics
    again from the input, sum g, sum g * (x - mean), and from them d weight, d bias), then the
    elementwise d input (batch_norm_backward_elemt)."""
    from .torch_ops import V, _kernel
    g, x = V(fe, a[0]), V(fe, a[1])
    w = V(fe, a[2]) if a[2] is not None else None
    train, eps, mask = a[7], a[8], list(a[9])
    running = None
    if not train:          # eval mode: the running statistics, constants of the step
        if a[3] is None or a[4] is None:
            raise fe.err(node, f"unsupported operator {fe.aten(node)} in eval mode without "
                         "running statistics")
        running = (V(fe, a[3]), V(fe, a[4]))
    C = x.shape[1]
    vals = list(val)
    sums = {n: fe.new_out(node, [C], f"bn_{n}", "f32") for n in ("mean", "invstd", "sum_g", "sum_gx")}
    dw = fe.new_out(node, [C], "dweight", fe.dtype(node, vals[1])) if mask[1] and vals[1] is not None else None
    db = fe.new_out(node, [C], "dbias", fe.dtype(node, vals[2])) if mask[2] and vals[2] is not None else None
    r = _kernel(fe, node, "bn_backward", [g, x], [C],
                {"part": "reduce", "eps": eps, "dweight": dw, "dbias": db, "running": running,
                 **sums}, dtype="f32")
    fe.g.tensors.remove(r.value.root().tensor)
    r.op.out = sums["sum_gx"]
    dx = None
    if mask[0] and vals[0] is not None:
        dx = _kernel(fe, node, "bn_backward", [g, x], list(x.shape),
                     {"part": "elemt", "weight": w, "running": running, **sums},
                     dtype=fe.dtype(node, vals[0])).value
    return [dx, dw, db]


def avg_pool_backward(fe, node, name, a, kw, val):
    """avg_pool{1,2,3}d_backward(grad, input, kernel, stride, padding, ceil_mode,
    count_include_pad, divisor_override): each window's gradient over its divisor, added to
    its elements."""
    from .torch_ops import V, _ints, _kernel
    g, x = V(fe, a[0]), V(fe, a[1])
    nsp = int(name[name.index("pool") + 4])
    ks = _ints(a[2], nsp, 1)
    st = _ints(a[3] if a[3] else None, nsp, None)
    st = [s if s is not None else k for s, k in zip(st, ks)]
    pd = _ints(a[4], nsp, 0)
    ceil, cip, div = a[5], a[6], a[7] if len(a) > 7 else None
    if ceil or (not cip and any(pd)):
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with ceil_mode or "
                     "count_include_pad=False")
    return _kernel(fe, node, "pool_backward", [g], list(x.shape),
                   {"kind": "avg", "kernel": ks, "stride": st, "padding": pd, "dilation": [1] * nsp,
                    "ceil_mode": False, "divisor": div or math.prod(ks)}, dtype=fe.dtype(node))


def place_backward(fe, node, name, a, kw, val):
    """slice_backward(grad, sizes, dim, start, end, step) and select_backward(grad, sizes,
    dim, index): zeros of the input's shape with the gradient placed where the view read."""
    from .torch_ops import V, _kernel, _nd
    g = V(fe, a[0])
    shape = fe.generic_shape(node, [g])
    d = _nd(a[2], len(shape))
    if name == "select_backward":
        idx = a[3] + (fe.sizes.value(shape[d]) if a[3] < 0 else 0)
        place = ("select", d, idx, 1)
    else:
        n = fe.sizes.value(shape[d])
        start = a[3] if a[3] is not None else 0
        start = max(0, start + n if start < 0 else min(start, n))
        place = ("slice", d, start, a[5] if len(a) > 5 else 1)
    return _kernel(fe, node, "place", [g], shape, {"place": place}, dtype=fe.dtype(node))


def embedding_backward(fe, node, name, a, kw, val):
    """embedding_dense_backward(grad, ids, num_weights, padding_idx, scale_grad_by_freq): the
    weight's gradient, zeros then dW[ids[t], d] += grad[t, d] in place (AIR 1.1's scatter;
    PyTorch's CUDA kernel zeroes the gradient, then sums each id's rows)."""
    from . import torch_index
    from .torch_ops import V, _kernel
    g, ids = V(fe, a[0]), V(fe, a[1])
    pad, freq = (a[3] if len(a) > 3 else -1), (a[4] if len(a) > 4 else False)
    if freq or (pad is not None and pad >= 0):
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with "
                     f"{'scale_grad_by_freq' if freq else 'padding_idx'}")
    shape = fe.generic_shape(node, [g])
    zeros = _kernel(fe, node, "pointwise", [], shape, {"f": lambda v, i: "0.0"},
                    dtype=fe.dtype(node)).value
    read = torch_index.reader(fe, node, ids, shape[0], "token ids")
    r = len(ids.shape)
    s = torch_index.scattered(fe, node, zeros, g, list(g.shape),
                              lambda j: [read(j[:r]), j[r]], "+=")
    fe.g.tensors.remove(s.value.root().tensor)
    s.op.out = zeros
    return zeros


def sdpa_groups(fe, q, k):
    """Query heads per key head (enable_gqa: q [.., H, L, E], k [.., H / g, S, E]), 1 without;
    the head count is frozen where it is more (as torch_ops.sdpa does)."""
    if len(q.shape) < 3:
        return 1
    g = fe.sizes.value(q.shape[-3]) // fe.sizes.value(k.shape[-3])
    if g > 1:
        fe.sizes.freeze_syms(q.shape[-3])
    return g


def sdpa_fwd(fe, node, name, a, kw, val):
    """solar_train::sdpa(q, k, v, mask, causal, scale) -> (out, lse): the forward sdpa kernel,
    which also writes each row's logsumexp (flash attention saves it for the backward)."""
    from .library_math import library_math
    from .torch_ops import V, _kernel
    q, k, v = V(fe, a[0]), V(fe, a[1]), V(fe, a[2])
    shape = list(q.shape[:-1]) + [v.shape[-1]]
    mask = V(fe, a[3]) if a[3] is not None else None
    r = _kernel(fe, node, "sdpa", [q, k, v], shape,
                {"mask": mask, "causal": a[4], "scale": a[5], "gqa": sdpa_groups(fe, q, k),
                 "math": library_math(fe, "sdpa", q.dtype)}, dtype=fe.dtype(node, val[0]))
    lse = fe.new_out(node, list(q.shape[:-1]), r.op.name + "_lse", "f32")
    r.op.attrs["lse"] = lse
    return [r.value, lse]


def sdpa_bwd(fe, node, name, a, kw, val):
    """solar_train::sdpa_backward(dout, q, k, v, out, lse, mask, causal, scale) -> (dq, dk, dv): flash
    attention's backward as one kernel (k_sdpa_backward)."""
    from .library_math import library_math
    from .torch_ops import V, _kernel
    g, q, k, v, o, lse = (V(fe, x) for x in a[:6])
    mask = V(fe, a[6]) if a[6] is not None else None
    dq = _kernel(fe, node, "sdpa_backward", [g, q, k, v, o, lse], list(q.shape),
                 {"mask": mask, "causal": a[7], "scale": a[8], "gqa": sdpa_groups(fe, q, k),
                  "math": library_math(fe, "sdpa", q.dtype)},
                 dtype=fe.dtype(node, val[0]))
    dk = fe.new_out(node, list(k.shape), dq.op.name + "_dk", fe.dtype(node, val[1]))
    dv = fe.new_out(node, list(v.shape), dq.op.name + "_dv", fe.dtype(node, val[2]))
    dq.op.attrs["dk"], dq.op.attrs["dv"] = dk, dv
    return [dq.value, dk, dv]


FAMILIES = (
    (("sdpa",), sdpa_fwd),
    (("sdpa_backward",), sdpa_bwd),
    (("embedding_dense_backward",), embedding_backward),
    (("avg_pool1d_backward", "avg_pool2d_backward", "avg_pool3d_backward"), avg_pool_backward),
    (("slice_backward", "select_backward"), place_backward),
    (("native_batch_norm_backward",), batch_norm_backward),
    (("max_pool1d_with_indices_backward", "max_pool2d_with_indices_backward",
      "max_pool3d_with_indices_backward"), max_pool_backward),
    (("_softmax_backward_data", "_log_softmax_backward_data"), softmax_backward),
    (("native_layer_norm_backward",), layer_norm_backward),
    (("native_group_norm_backward",), group_norm_backward),
    (("mse_loss_backward",), mse_loss_backward),
    (("nll_loss_backward",), nll_loss_backward),
    (("convolution_backward",), conv_backward),
)
