"""Indexing with data in the JAX frontend (AIR 1.1, docs/air-1.1-indexing.md): lax.gather and
the lax.scatter family of whole rows (`E[ids]`, jnp.take, take_along_axis, `x.at[i].add(v)`),
each one kernel whose index reads an integer input declared with its range.

jnp normalises an index before it gathers (`select_n(i < 0, i, i + N)`: negative indices count
from the end); those kernels stay (eager JAX runs them), and since the range declared on the
input is 0..N, their result equals the input, which the gather then reads directly, so the
index is still an input's (note_normalised); an index vector concatenated from such indices and
iotas (`x[jnp.arange(N), t]`) is read entry by entry, an iota's as its affine value.  The
normalisation and concatenation kernels are then dropped where nothing else reads them (prune).  An index computed otherwise is refused.
"""
import sympy

from .opgraph import (INT, TOPK_MOST, Tensor, TranslateError, Value, data_read, set_range,
                      topk_results)

SCATTERS = {"scatter-add": "+=", "scatter_add": "+=", "scatter": "=", "scatter-mul": "*=",
            "scatter_mul": "*=", "scatter-max": "max=", "scatter_max": "max=",
            "scatter-min": "min=", "scatter_min": "min="}


def note_normalised(fe, name, ins, r):
    """Remembers the recipe of the kernels of jnp's index normalisation, and marks the tmp of
    `select_n(x < 0, x, x + c)` as equal to x on every x the range allows (Tensor.same_as)."""
    rec = fe.__dict__.setdefault("_recipes", {})
    vals = [v for v in ins if isinstance(v, Value)]
    if name == "lt" and len(ins) == 2 and isinstance(ins[0], Value) and ins[1] == 0:
        rec[id(r.tensor)] = ("neg", ins[0])
    elif name == "add" and len(vals) == 1 and len(ins) == 2 and vals[0].dtype in INT:
        rec[id(r.tensor)] = ("wrap", vals[0])
    elif name == "select_n" and len(ins) == 3 and all(isinstance(v, Value) for v in ins):
        pred, x, y = ins
        if rec.get(id(pred.root().tensor)) == ("neg", x) and pred.base is None and \
                rec.get(id(y.root().tensor)) == ("wrap", x) and y.base is None:
            r.tensor.same_as = x
            fe.__dict__.setdefault("_norm", set()).update(
                {pred.tensor, y.tensor, r.tensor})


def prune(fe):
    """Drops the normalisation kernels whose result no kernel reads (every gather of the
    normalised index reads the input itself): XLA fuses them into the gather, and their tmps
    would count as traffic no run makes."""
    norm = fe.__dict__.get("_norm", set())
    while norm:
        read = {x.root().tensor for op in fe.g.ops
                for x in list(op.ins) + list(op.attrs.values()) if isinstance(x, Value)}
        dead = [op for op in fe.g.ops if op.out.root().tensor in norm
                and op.out.root().tensor.role == "tmp" and op.out.root().tensor not in read]
        if not dead:
            return
        for op in dead:
            fe.g.ops.remove(op)
            fe.g.tensors.remove(op.out.root().tensor)


def _source(fe, v, ix):
    """(tensor, index, producer op or None) that v's element ix is read from: through views,
    jnp's normalisation (same_as) and a concatenate of index vectors at a constant position
    (the index vector of `x[jnp.arange(N), t]`), whose kernel is then dropped as the
    normalisation's is (prune)."""
    t, ix = v.index(list(ix))
    while t.role != "in":
        if getattr(t, "same_as", None) is not None:
            t, ix = t.same_as.index(ix)
            continue
        known = fe.__dict__.setdefault("_producers", {})   # kept: prune may drop the op
        op = known.get(t) or next((o for o in fe.g.ops if o.out.root().tensor is t), None)
        known[t] = op
        d = op.attrs.get("dim") if op is not None and op.kind == "cat" else None
        k = sympy.sympify(ix[d]) if d is not None else None
        if k is None or not k.is_Integer:
            return t, ix, op
        fe.__dict__.setdefault("_norm", set()).add(t)
        off = 0
        for x in op.ins:
            n = fe.sizes.value(x.shape[d])
            if off <= k < off + n:
                t, ix = x.index(list(ix[:d]) + [k - off] + list(ix[d + 1:]))
                break
            off += n
    return t, ix, None


def reader(fe, eqn, idx, his):
    """read(ix): the value of the index array idx at ix (its last position k an entry of the
    index vector): a data read of an input declared in 0..his[k], or the affine value of an
    iota (jnp.arange)."""
    prim = eqn.primitive.name
    if not isinstance(idx, Value) or idx.dtype not in INT:
        raise fe.err(eqn, f"unsupported primitive {prim}: its indices are not an integer array")
    probe = [sympy.Symbol(f"_p{k}", integer=True) for k in range(len(idx.shape) - 1)]
    for k, hi in enumerate(his):
        t, _, op = _source(fe, idx, probe + [k])
        if op is not None and "affine" in op.attrs:
            continue
        if op is not None and op.kind == "topk" and t.range is not None:
            if fe.sizes.value(t.range[1]) > fe.sizes.value(hi):
                raise fe.err(eqn, f"unsupported primitive {prim}: its indices ('{t.name}', "
                             f"from top_k) go beyond the {hi} elements they index")
            continue
        if t.role != "in":
            raise fe.err(eqn, f"unsupported primitive {prim}: its indices ('{t.name}') are "
                         "computed in fn, and AIR 1.1 declares value ranges on inputs only, so "
                         "only an input array can index; pass the indices as an integer input "
                         "of fn")
        if not t.shape:
            raise fe.err(eqn, f"unsupported primitive {prim} with a 0-d index array: AIR 1.1 "
                         "reads it inside an index as an element; pass it with one dimension "
                         "of size 1")
        set_range(fe.sizes, t, hi)

    def read(ix):
        t, ix, op = _source(fe, idx, ix)
        return op.attrs["affine"](ix) if op is not None and "affine" in op.attrs \
            else data_read(t, ix)
    return read


def top_k(fe, eqn, ins, aval):
    """lax.top_k (jax.lax.top_k, the last axis, largest first): the kernel of torch.topk
    (torch_index.topk, docs/bounds.md "Selections"), the values and the indices from one
    kernel, the indices in 0..n so that a gather may read them."""
    x = ins[0]
    k = eqn.params["k"]
    if not 1 <= k <= TOPK_MOST:
        raise fe.err(eqn, f"unsupported primitive top_k with k = {k}: a selection of more than "
                     f"{TOPK_MOST} is not translated (docs/bounds.md, \"Selections\")")
    d = eqn.params.get("axis", -1) % len(x.shape)
    shape = list(x.shape)
    shape[d] = sympy.Integer(k)
    idx = fe.kernel(eqn, "topk", [x], shape, {"dim": d, "k": k, "largest": True},
                    dtype=fe.dtype(eqn, eqn.outvars[1].aval))
    op = fe.g.ops[-1]
    t = Tensor(fe.tname(op.name + "_values"), shape, fe.dtype(eqn, eqn.outvars[0].aval), "tmp")
    fe.g.add_tensor(t)
    vals = Value(shape, t.dtype, tensor=t)
    topk_results(fe.sizes, op, vals, k, x.shape[d])
    return [vals, idx]


def _place(r, window, win_at, obd, ibd, imap, read):
    """at(ix, b): the operand index (rank r) of the element at ix of a gather's result or a
    scatter's updates, b its batch index: the window dims from ix at win_at, the batching
    dims obd from b at ibd, each indexed dim imap[k] the data read of index vector entry k."""
    def at(ix, b):
        xi = [None] * r
        for d, j in zip(window, win_at):
            xi[d] = ix[j]
        for d, jb in zip(obd, ibd):
            xi[d] = b[jb]
        for k, d in enumerate(imap):
            xi[d] = read(b + [k])
        return xi
    return at


def gather(fe, eqn, ins, aval):
    """lax.gather of whole rows: every operand dim is either indexed (a collapsed dim of slice
    size 1, its start an element of the index vector), a batching dim, or taken whole."""
    x, idx = ins
    p = eqn.params
    dn, ss = p["dimension_numbers"], list(p["slice_sizes"])
    r = len(x.shape)
    offset, coll, smap = list(dn.offset_dims), set(dn.collapsed_slice_dims), list(dn.start_index_map)
    obd, ibd = list(dn.operand_batching_dims), list(dn.start_indices_batching_dims)
    window = [d for d in range(r) if d not in coll and d not in obd]
    if not (set(smap) <= coll and all(ss[d] == 1 for d in coll | set(obd))
            and all(ss[d] == fe.sizes.value(x.shape[d]) for d in window)
            and len(window) == len(offset) and isinstance(idx, Value)):
        raise fe.err(eqn, "unsupported primitive gather: only whole-row gathers (x[idx], "
                     "jnp.take, jnp.take_along_axis) are translated")
    read = reader(fe, eqn, idx, [x.shape[d] for d in smap])
    nout = len(aval.shape)
    batch = [j for j in range(nout) if j not in offset]
    shape = [None] * nout
    for k, j in enumerate(batch):
        shape[j] = idx.shape[k]
    for k, j in enumerate(offset):
        shape[j] = x.shape[window[k]]
    if [fe.sizes.value(e) for e in shape] != [int(s) for s in aval.shape]:
        raise TranslateError(f"internal error: gather shape {shape} is not JAX's {aval.shape}",
                             fe.where(eqn)[0])

    at = _place(r, window, offset, obd, ibd, smap, read)
    g = Value(shape, x.dtype, base=x, fn=lambda ix: at(ix, [ix[j] for j in batch]))
    return fe.kernel(eqn, "pointwise", [g], shape, {"f": lambda v, i: v[0]}, dtype=x.dtype)


def scatter(fe, eqn, name, ins, aval):
    """lax.scatter, scatter-add, -mul, -max, -min of whole rows (x.at[idx].add(v)): the copy of
    the operand, then out[target(j)] op= updates[j] (emit_air.Emitter.k_scatter)."""
    x, idx, upd = ins[0], ins[1], ins[2]
    dn = eqn.params["dimension_numbers"]
    r = len(x.shape)
    uwd, iwd = list(dn.update_window_dims), set(dn.inserted_window_dims)
    sd = list(dn.scatter_dims_to_operand_dims)
    obd, ibd = list(dn.operand_batching_dims), list(dn.scatter_indices_batching_dims)
    window = [d for d in range(r) if d not in iwd and d not in obd]
    if not (isinstance(upd, Value) and isinstance(idx, Value) and set(sd) <= iwd
            and len(window) == len(uwd)
            and all(fe.sizes.value(upd.shape[u]) == fe.sizes.value(x.shape[d])
                    for u, d in zip(uwd, window))):
        raise fe.err(eqn, f"unsupported primitive {name}: only whole-row scatters "
                     "(x.at[idx].add(v), .set(v)) are translated")
    read = reader(fe, eqn, idx, [x.shape[d] for d in sd])
    su = [j for j in range(len(upd.shape)) if j not in uwd]

    at = _place(r, window, uwd, obd, ibd, sd, read)
    attrs = {"domain": list(upd.shape), "target": lambda j: at(j, [j[u] for u in su]),
             "op": SCATTERS[name], "alpha": 1}
    return fe.kernel(eqn, "scatter", [x, upd], list(x.shape), attrs, dtype=x.dtype)
