"""Indexing with data (AIR 1.1, docs/air-1.1-indexing.md): the ATen operators whose indices are
values of an integer tensor -- gathers (embedding, index_select, gather, take_along_dim,
x[idx]), the class pick of nll_loss and cross_entropy, and scatters (scatter, scatter_add,
scatter_reduce, index_add, index_copy, index_put) -- each one kernel, as eager runs it.

The index tensor must be an `in` tensor (a forward() argument, or a buffer): AIR 1.1 declares a
value range on inputs only (`in ids[B, S]: i64 in 0..VOCAB;`), and the range is what the op
requires of its indices (an embedding's rows, the classes of a loss, the size of the gathered
dimension).  An index computed inside forward is refused, naming the op that computed it,
except topk's and argmax's / argmin's (their kernels write indices in 0..n, a range solar check
proves) and arange's (its values are an affine index, read as such).
"""
import sympy

from . import torch_ops as ops
from .opgraph import INT, TOPK_MOST, Value, data_read, set_range, topk_results
from .sizes import pr


def producer(fe, t):
    """The op that writes tensor t, or None."""
    return next((op for op in fe.g.ops if isinstance(op.out, Value) and op.out.root().tensor is t),
                None)


BYTES = {"i8": 1, "u8": 1, "i32": 4, "i64": 8}


def widening(src, dst):
    """Whether a cast from integer dtype src to dst keeps every value (the same dtype, or a
    wider one that holds src's range)."""
    if src not in BYTES or dst not in BYTES:
        return False
    return src == dst or (BYTES[dst] > BYTES[src] and not (dst == "u8"))


def source(fe, idx, ix):
    """(tensor, index, its producer op or None) that idx's element ix is read from: through
    views, and through integer casts that keep every value (their op's `alias`)."""
    t, ix = idx.index(list(ix))
    op = producer(fe, t) if t.role != "in" else None
    while op is not None and "alias" in op.attrs:
        t, ix = op.attrs["alias"].index(ix)
        op = producer(fe, t) if t.role != "in" else None
    return t, ix, op


def reader(fe, node, idx, hi, what="index"):
    """read(ix): the data read of the index tensor idx (a Value) at idx's index ix, whose root
    `in` tensor is declared in 0..hi; refused (located) for a mask, a float, or an index that
    forward computed."""
    aten = fe.aten(node)
    if not isinstance(idx, Value):
        raise fe.err(node, f"unsupported operator {aten}", f"the {what} are not a tensor")
    if idx.dtype == "bool":
        raise fe.err(node, f"unsupported operator {aten} with a boolean mask",
                     "its result's size is the number of true elements, which is data; "
                     "use torch.where(mask, x, 0) and reduce")
    if idx.dtype not in INT:
        raise fe.err(node, f"unsupported operator {aten}",
                     f"the {what} are {idx.dtype}, not an integer tensor")
    probe = [sympy.Symbol(f"_p{k}", integer=True) for k in range(len(idx.shape))]
    t, _, by = source(fe, idx, probe)
    if by is not None and "affine" in by.attrs:     # arange: the value is an affine index
        return lambda ix: by.attrs["affine"](source(fe, idx, ix)[1])
    if by is not None and by.kind == "reduce" and by.attrs.get("op") in ("argmax", "argmin") \
            and t.range is None:
        # an argmax's index is in 0..n, n the elements it reduces over (its kernel stores an
        # affine index of the reduced iterators, or 0: solar check proves the range)
        n = sympy.Integer(1)
        for d in by.attrs["dims"]:
            n *= by.attrs["shape"][d]
        set_range(fe.sizes, t, n)
    if by is not None and by.kind in ("topk", "reduce") and t.range is not None:
        # a selection's indices: in 0..n by the kernel (solar check proves it); they may index
        # an extent of n or more
        if fe.sizes.value(t.range[1]) > fe.sizes.value(hi):
            raise fe.err(node, f"unsupported operator {aten}",
                         f"its {what} ('{t.name}', from {by.aten}) go up to "
                         f"{pr(t.range[1])}, beyond the {pr(hi)} elements they index")
        return lambda ix: data_read(*source(fe, idx, ix)[:2])
    if t.role != "in":
        by = by.aten + (f" at line {by.line}" if by.line else "") if by else "by an op"
        raise fe.err(node, f"unsupported operator {aten}",
                     f"its {what} ('{t.name}') are computed in forward ({by}), "
                     "and AIR 1.1 declares value ranges on inputs and on what topk and argmax "
                     "compute only, so no other tensor can index; pass the indices as an "
                     "int64 forward() argument")
    if not t.shape:
        raise fe.err(node, f"unsupported operator {aten} with a 0-d {what} tensor",
                     f"AIR 1.1 reads an index tensor inside an index as an element "
                     f"(`{t.name}[i]`), not as a scalar; pass it with one dimension of size 1")
    set_range(fe.sizes, t, hi)
    return lambda ix: data_read(*source(fe, idx, ix)[:2])


def gathered(fe, node, x, shape, fn):
    """One kernel copying x through the index map fn (which holds data reads), as eager's
    gather kernel writes its result."""
    g = Value(shape, x.dtype, base=x, fn=fn)
    return ops._kernel(fe, node, "pointwise", [g], shape, {"f": lambda v, i: v[0]}, dtype=x.dtype)


def check_shape(fe, node, shape, val):
    if [fe.sizes.value(e) for e in shape] != [int(s) for s in val.shape]:
        raise fe.err(node, f"internal error: {fe.aten(node)} shape "
                     f"{[fe.sizes.value(e) for e in shape]} is not PyTorch's {list(val.shape)}")


# ---- gathers ------------------------------------------------------------------------------

def embedding(fe, node, name, a, kw, val):
    """out[t.., d] = weight[ids[t..], d]: the ids in 0..num_embeddings (padding_idx changes
    only the backward)."""
    w, ids = ops.V(fe, a[0]), ops.V(fe, a[1])
    read = reader(fe, node, ids, w.shape[0], "token ids")
    r = len(ids.shape)
    shape = list(ids.shape) + [w.shape[1]]
    return gathered(fe, node, w, shape, lambda ix: [read(ix[:r]), ix[r]])


def embedding_renorm(fe, node, name, a, kw, val):
    raise fe.err(node, f"unsupported operator {fe.aten(node)}",
                 "nn.Embedding's max_norm rescales the rows the ids pick, in place in the "
                 "weight; drop max_norm (or renormalise the weight outside forward)")


def index_select(fe, node, name, a, kw, val):
    """out[.., j, ..] = x[.., idx[j], ..] along dim (a 0-d idx keeps the dim, of size 1)."""
    x, idx = ops.V(fe, a[0]), ops.V(fe, a[2])
    d = ops._nd(a[1], len(x.shape))
    read = reader(fe, node, idx, x.shape[d])
    shape = list(x.shape)
    shape[d] = idx.shape[0] if idx.shape else sympy.Integer(1)
    one = len(idx.shape) == 1
    return gathered(fe, node, x, shape,
                    lambda ix: ix[:d] + [read(ix[d:d + 1] if one else [])] + ix[d + 1:])


def gather(fe, node, name, a, kw, val):
    """gather(x, dim, idx): out[i] = x[i with dim := idx[i]] (out has idx's shape);
    take_along_dim(x, idx, dim): the same with x and idx broadcast to each other."""
    if name == "gather":
        x, d, idx = ops.V(fe, a[0]), a[1], ops.V(fe, a[2])
    else:
        x, idx = ops.V(fe, a[0]), ops.V(fe, a[1])
        d = a[2] if len(a) > 2 else kw.get("dim")
        if d is None:
            raise fe.err(node, f"unsupported operator {fe.aten(node)} without dim (of the "
                         "flattened tensor); give dim")
    r = len(x.shape)
    d = ops._nd(d, r)
    read = reader(fe, node, idx, x.shape[d])
    if name == "gather":
        return gathered(fe, node, x, list(idx.shape),
                        lambda ix: ix[:d] + [read(ix)] + ix[d + 1:])
    one = lambda s: fe.sizes.value(s) == 1    # noqa: E731
    shape = [idx.shape[j] if j == d or one(x.shape[j]) else x.shape[j] for j in range(r)]
    check_shape(fe, node, shape, val)

    def fn(ix):
        ii = [0 if one(idx.shape[j]) and not one(shape[j]) else ix[j] for j in range(r)]
        xi = [0 if one(x.shape[j]) and not one(shape[j]) else ix[j] for j in range(r)]
        return xi[:d] + [read(ii)] + xi[d + 1:]
    return gathered(fe, node, x, shape, fn)


def advanced(fe, node, x, inds):
    """(shape, fn) of x[inds] (aten.index.Tensor's rules): the index tensors broadcast
    together; their dims replace the indexed dims in place when those are adjacent, else they
    come first; fn maps an index of the result to x's, with the data reads."""
    r = len(x.shape)
    pos = [j for j, e in enumerate(inds) if e is not None]
    vals = {j: ops.V(fe, inds[j]) for j in pos}
    reads = {j: reader(fe, node, vals[j], x.shape[j]) for j in pos}
    nb = max(len(vals[j].shape) for j in pos)
    bshape = []
    for k in range(nb):
        pick = sympy.Integer(1)
        for j in pos:
            v = vals[j]
            kk = len(v.shape) - (nb - k)
            if kk >= 0 and fe.sizes.value(v.shape[kk]) != 1:
                pick = v.shape[kk]
                break
        bshape.append(pick)
    before = list(range(pos[0])) if pos == list(range(pos[0], pos[-1] + 1)) else []
    rest = [j for j in range(r) if j not in pos and j not in before]
    shape = [x.shape[j] for j in before] + bshape + [x.shape[j] for j in rest]
    nf = len(before)

    def fn(ix):
        b = list(ix[nf:nf + nb])
        out = [None] * r
        for k, j in enumerate(before):
            out[j] = ix[k]
        for k, j in enumerate(rest):
            out[j] = ix[nf + nb + k]
        for j in pos:
            v = vals[j]
            sub = b[nb - len(v.shape):]
            out[j] = reads[j]([0 if fe.sizes.value(s) == 1 else e for s, e in zip(v.shape, sub)])
        return out
    return shape, fn


# The contractions a gather may feed through its index map (docs/bounds.md, "Indexing with
# data": a gather read by contractions only).
CONTRACTIONS = {"einsum", "matmul", "bmm", "mm", "linear"}


def index_tensor(fe, node, name, a, kw, val):
    """x[idx] with integer index tensors (aten.index.Tensor): a gather kernel; or, when every
    reader of the result is a contraction (the experts' weights a router picks, `w1[chosen]`
    under an einsum), the index map itself, which the contractions read through: a grouped
    GEMM's access, where eager writes the gathered copy first (docs/bounds.md)."""
    x = ops.V(fe, a[0])
    shape, fn = advanced(fe, node, x, list(a[1]))
    check_shape(fe, node, shape, val)
    users = list(node.users)
    if users and all(getattr(getattr(u.target, "overloadpacket", None), "__name__", None)
                     in CONTRACTIONS for u in users):
        return Value(shape, x.dtype, base=x, fn=fn)
    return gathered(fe, node, x, shape, fn)


# ---- losses with class-index targets ------------------------------------------------------

def nll(fe, node, name, a, kw, val):
    """nll_loss (nll_loss_nd, nll_loss_forward, nll_loss2d) and cross_entropy_loss (a
    log_softmax kernel, then the same loss kernel, as eager's two kernels) with class-index
    targets: weight, ignore_index, label_smoothing, reduction none / mean / sum."""
    x, t = ops.V(fe, a[0]), ops.V(fe, a[1])

    def arg(k, key, d):
        return a[k] if len(a) > k else kw.get(key, d)
    w = arg(2, "weight", None)
    w = ops.V(fe, w) if w is not None else None
    red, ig = arg(3, "reduction", 1), arg(4, "ignore_index", -100)
    ls = arg(5, "label_smoothing", 0.0) if name == "cross_entropy_loss" else 0.0
    if name == "cross_entropy_loss" and isinstance(t, Value) and t.dtype not in INT + ("bool",):
        raise fe.err(node, f"unsupported operator {fe.aten(node)} with class-probability "
                     "targets", "the targets are float; only class indices are translated yet")
    cd = 1 if len(x.shape) >= 2 else 0
    C = x.shape[cd]
    read = reader(fe, node, t, C, "targets")
    vv = val[0] if isinstance(val, (list, tuple)) else val
    dt = fe.dtype(node, vv)
    line, path = fe.where(node)
    if name == "cross_entropy_loss":
        lname = fe.kname(path, "log_softmax")
        lp = fe.new_out(node, list(x.shape), lname, x.dtype)
        fe.add_op(node, "softmax", [x], lp, {"dim": cd, "log": True}, opname=lname)
        x = lp
    pick = Value(list(t.shape), x.dtype, base=x, fn=lambda ix: ix[:cd] + [read(ix)] + ix[cd:])
    wpick = Value(list(t.shape), w.dtype, base=w, fn=lambda ix: [read(ix)]) if w is not None else None
    attrs = {"logp": x, "weight": w, "wpick": wpick, "reduction": red, "C": C, "dim": cd,
             "ignore": ig if 0 <= ig < fe.sizes.value(C) else None, "smoothing": ls}
    nname = fe.kname(path, "nll_loss")
    out = fe.new_out(node, list(t.shape) if red == 0 else [], nname, dt)
    op = fe.add_op(node, "nll", [pick, t], out, attrs, opname=nname)
    r = ops.Op_(op, out)
    if isinstance(val, (list, tuple)):      # nll_loss_forward: (loss, total_weight)
        return [out] + [None] * (len(val) - 1)
    return r


def one_hot(fe, node, name, a, kw, val):
    """one_hot(t, C): out[.., c] = (t[..] == c); values may read t freely (no index)."""
    t = ops.V(fe, a[0])
    n = a[1] if len(a) > 1 else kw.get("num_classes", -1)
    if n is None or n < 0:
        raise fe.err(node, f"unsupported operator {fe.aten(node)} without num_classes",
                     "the number of classes is then max(t) + 1, which is data; give num_classes")
    shape = list(t.shape) + [fe.sym_by_value(int(val.shape[-1]))]
    f = lambda v, i: f"select({v[0]} == {ops.pr(i[-1])}, 1, 0)"     # noqa: E731
    r = len(t.shape)
    tv = Value(shape, t.dtype, base=t, fn=lambda ix: ix[:r])
    return ops._kernel(fe, node, "pointwise", [tv], shape, {"f": f})


# ---- scatters -----------------------------------------------------------------------------

REDUCE_OPS = {"sum": "+=", "add": "+=", "prod": "*=", "multiply": "*=", "amax": "max=",
              "amin": "min="}


def scattered(fe, node, x, src, domain, target, aop, alpha=1):
    """One kernel: out = x (left out when the op updates x in place), then for every j of
    domain, out[target(j)] aop src at j (broadcast; a scalar src is a literal)."""
    attrs = {"domain": list(domain), "target": target, "op": aop, "alpha": alpha}
    return ops._kernel(fe, node, "scatter", [x, src], list(x.shape), attrs, dtype=x.dtype)


def scatter(fe, node, name, a, kw, val):
    """scatter (src or value, reduce add / multiply), scatter_add, scatter_reduce (sum, prod,
    amax, amin with include_self): out[j with dim := idx[j]] op= src[j] over idx's shape."""
    x, d, idx = ops.V(fe, a[0]), a[1], ops.V(fe, a[2])
    src = ops.V(fe, a[3]) if len(a) > 3 else kw.get("src", kw.get("value"))
    d = ops._nd(d, len(x.shape))
    aop = "+=" if name == "scatter_add" else "="
    red = a[4] if len(a) > 4 else kw.get("reduce")
    if red is not None:
        include = a[5] if len(a) > 5 else kw.get("include_self", True)
        if red not in REDUCE_OPS or not include:
            raise fe.err(node, f"unsupported operator {fe.aten(node)} with reduce='{red}'"
                         + ("" if include else " and include_self=False"),
                         "sum, prod, amax and amin over the tensor itself are supported")
        aop = REDUCE_OPS[red]
    read = reader(fe, node, idx, x.shape[d])
    return scattered(fe, node, x, src, idx.shape, lambda j: j[:d] + [read(j)] + j[d + 1:], aop)


def index_add(fe, node, name, a, kw, val):
    """index_add(x, dim, idx, src, alpha) / index_copy(x, dim, idx, src):
    out[.., idx[j], ..] += alpha * src[.., j, ..] (= for index_copy)."""
    x, d, idx, src = ops.V(fe, a[0]), a[1], ops.V(fe, a[2]), ops.V(fe, a[3])
    d = ops._nd(d, len(x.shape))
    alpha = a[4] if len(a) > 4 else kw.get("alpha", 1)
    read = reader(fe, node, idx, x.shape[d])
    one = len(idx.shape) == 1
    return scattered(fe, node, x, src, src.shape,
                     lambda j: j[:d] + [read(j[d:d + 1] if one else [])] + j[d + 1:],
                     "+=" if name == "index_add" else "=", alpha)


def index_put(fe, node, name, a, kw, val):
    """index_put(x, indices, values, accumulate): out[indices] = values (+= when accumulate;
    with duplicates and no accumulate one of them lands, as PyTorch's)."""
    x, vals = ops.V(fe, a[0]), ops.V(fe, a[2])
    acc = a[3] if len(a) > 3 else kw.get("accumulate", False)
    domain, fn = advanced(fe, node, x, list(a[1]))
    return scattered(fe, node, x, vals, domain, fn, "+=" if acc else "=")


# ---- refused ------------------------------------------------------------------------------

def topk(fe, node, name, a, kw, val):
    """topk(x, k, dim=-1, largest=True, sorted=True): k passes over the dim, pass j keeping the
    largest element that no earlier pass took (strict >, so the first of equal values, as a
    stable selection), one kernel writing the values and the indices (docs/bounds.md,
    "Selections", for why k is small).  The indices are data for what follows: their tensor
    carries the range 0..n, which solar check proves of the kernel, so a gather may read them
    (the experts' weights of a router's choice)."""
    x = ops.V(fe, a[0])
    k = a[1] if len(a) > 1 else kw.get("k")
    d = a[2] if len(a) > 2 else kw.get("dim", -1)
    largest = a[3] if len(a) > 3 else kw.get("largest", True)
    srt = a[4] if len(a) > 4 else kw.get("sorted", True)
    aten = fe.aten(node)
    if not isinstance(k, int):
        raise fe.err(node, f"unsupported operator {aten} with a k computed in forward",
                     "k must be a Python integer")
    if not srt:
        raise fe.err(node, f"unsupported operator {aten} with sorted=False",
                     "its order is unspecified, so no translation can be checked against it; "
                     "use sorted=True (the default)")
    if not 1 <= k <= TOPK_MOST:
        raise fe.err(node, f"unsupported operator {aten} with k = {k}",
                     f"a selection of more than {TOPK_MOST} is not translated: k passes would "
                     "count more comparisons than a selection needs (docs/bounds.md, "
                     "\"Selections\")")
    r = len(x.shape)
    if r == 0:
        raise fe.err(node, f"unsupported operator {aten} of a 0-d tensor")
    d = ops._nd(d, r)
    shape = list(x.shape)
    shape[d] = sympy.Integer(k)
    check_shape(fe, node, shape, val[0])
    res = ops._kernel(fe, node, "topk", [x], shape, {"dim": d, "k": k, "largest": largest},
                      dtype=fe.dtype(node, val[1]))
    values = fe.new_out(node, shape, res.op.name + "_values", fe.dtype(node, val[0]))
    topk_results(fe.sizes, res.op, values, k, x.shape[d])
    return [values, res.value]


def selection(fe, node, name, a, kw, val):
    raise fe.err(node, f"unsupported operator {fe.aten(node)}",
                 "a sort (sort, argsort, msort, kthvalue) is not translated yet: its work "
                 "needs a library statement of its own (docs/air-1.1-indexing.md, 4.6); "
                 f"topk with k <= {TOPK_MOST} is")


def data_sized(fe, node, name, a, kw, val):
    raise fe.err(node, f"unsupported operator {fe.aten(node)}",
                 "its result's size depends on the data; use torch.where(mask, x, 0) and "
                 "reduce (docs/air-1.1-indexing.md, 4.6)")


def not_yet(fe, node, name, a, kw, val):
    raise fe.err(node, f"unsupported operator {fe.aten(node)}",
                 "an indexing operator not translated yet (docs/translate.md)")


FAMILIES = (
    (("embedding",), embedding),
    (("embedding_renorm",), embedding_renorm),
    (("index_select",), index_select),
    (("gather", "take_along_dim"), gather),
    (("index",), index_tensor),
    (("nll_loss", "nll_loss_nd", "nll_loss_forward", "nll_loss2d", "nll_loss2d_forward",
      "cross_entropy_loss"), nll),
    (("one_hot",), one_hot),
    (("scatter", "scatter_add", "scatter_reduce"), scatter),
    (("index_add", "index_copy"), index_add),
    (("index_put",), index_put),
    (("topk",), topk),
    (("sort", "argsort", "msort", "kthvalue"), selection),
    (("nonzero", "masked_select", "unique", "_unique2", "unique_consecutive", "bincount",
      "multinomial"), data_sized),
    (("take", "embedding_bag", "_embedding_bag", "searchsorted", "masked_scatter"), not_yet),
)
