"""Emits a Graph (opgraph.py) as an AIR program (docs/air.md).

One Op is one `kernel` block, named after its module path and op (dots become underscores:
AIR names are C identifiers; the dotted path and the Python source line are in the comment
above the kernel).  Every index, loop bound and condition is built as a sympy expression of
iterators and size symbols, so that after all kernels are written Sizes.freeze_nonaffine can
decide which sizes must be `const` (docs/air.md: `i*S` is affine only for a const S); the
others are `param`s.

Numerics follow what PyTorch's kernels compute: contractions and reductions on bf16/f16
accumulate in an f32 tmp and round once (cuBLAS, cuDNN and PyTorch's reduction kernels do),
normalisation statistics are f32 tmps, and every op's result is rounded once to its dtype
when it is stored, as eager PyTorch stores each kernel's output.
"""
import math
import re

import sympy

from .opgraph import Tensor, TranslateError
from .sizes import cdiv, fdiv, pr

LOW = ("bf16", "f16", "f8e4m3", "f8e5m2")
KEYWORDS = {"air", "param", "const", "in", "out", "inout", "tmp", "kernel", "for", "step", "if",
            "else", "and", "or", "not", "inf", "rand"}


def flit(v):
    """A Python number as an AIR float literal."""
    if isinstance(v, bool):
        return "1.0" if v else "0.0"
    v = float(v)
    if math.isnan(v):
        return "(0.0 / 0.0)"
    if math.isinf(v):
        return "inf" if v > 0 else "(-inf)"
    s = repr(abs(v))
    if "e" in s:
        m, ex = s.split("e")
        s = (m if "." in m else m + ".0") + "e" + ex
    elif "." not in s:
        s += ".0"
    return s if v >= 0 else "(-" + s + ")"


class Kernel:
    def __init__(self, em, op):
        self.em, self.op = em, op
        self.lines = []
        self.depth = 1
        self.n = 0

    def iters(self, k, prefix="i"):
        out = []
        for _ in range(k):
            name = f"{prefix}{self.n}"
            self.n += 1
            while name in self.em.names:
                name = "_" + name
            out.append(sympy.Symbol(name, integer=True, nonnegative=True))
        return out

    def line(self, s):
        self.lines.append("  " * self.depth + s)

    def open_for(self, its, bounds):
        """for it0 in lo..hi, ... {  (bounds: list of (lo, hi))"""
        return self._open("for", ", ", [(it.name + " in", lo, "..", hi) for it, (lo, hi) in zip(its, bounds)])

    def open_if(self, conds):
        """if a op b and ... {  (conds: list of (lhs, op, rhs) affine comparisons)"""
        return self._open("if", " and ", [("", a, f" {o} ", b) for a, o, b in conds])

    def _open(self, word, sep, parts):
        if not parts:
            return 0
        text = []
        for head, a, mid, b in parts:
            self.em.affine(a)
            self.em.affine(b)
            text.append(f"{head + ' ' if head else ''}{pr(a)}{mid}{pr(b)}")
        self.line(word + " " + sep.join(text) + " {")
        self.depth += 1
        return 1

    def close(self, n=1):
        for _ in range(n):
            self.depth -= 1
            self.line("}")

    def ref(self, v, idx):
        """AIR text of reading Value v at idx (a list of sympy index expressions)."""
        t, ix = v.index(idx)
        for e in ix:
            self.em.affine(e)
        if not t.shape:
            return t.name
        return t.name + "[" + ", ".join(pr(e) for e in ix) + "]"

    def tref(self, t, idx):
        for e in idx:
            self.em.affine(e)
        return t.name if not t.shape else t.name + "[" + ", ".join(pr(e) for e in idx) + "]"

    def assign(self, target, op, expr):
        self.line(f"{target} {op} {expr};")


def bidx(v, idx):
    """The index of a broadcast operand v for the output index idx (numpy rules)."""
    r = len(v.shape)
    sub = list(idx[len(idx) - r:]) if r else []
    return [0 if (sympy.sympify(s) == 1 and not _is_one(e)) else e for s, e in zip(v.shape, sub)]


def _is_one(e):
    return sympy.sympify(e) == 0


class Emitter:
    def __init__(self, graph):
        self.g = graph
        self.sizes = graph.sizes
        self.names = set(t.name for t in graph.tensors) | set(graph.sizes.used())
        self.kernels = []
        self.tmp_n = 0

    # -- helpers ---------------------------------------------------------------------------
    def affine(self, e):
        self.sizes.freeze_nonaffine(e)

    def new_tmp(self, base, shape, dtype, comment=""):
        name = base
        k = 2
        while name in self.names or name in KEYWORDS:
            name = f"{base}_{k}"
            k += 1
        self.names.add(name)
        t = Tensor(name, shape, dtype, "tmp")
        t.comment = comment
        self.g.tensors.append(t)
        return t

    def val(self, k, x, idx):
        """Operand x (a Value or a Python scalar) at the broadcast output index idx."""
        if hasattr(x, "index"):
            return k.ref(x, bidx(x, idx))
        return flit(x)

    def full_loops(self, k, shape, prefix="i"):
        its = k.iters(len(shape), prefix)
        n = k.open_for(its, [(0, s) for s in shape])
        return its, n

    # -- the program -----------------------------------------------------------------------
    def emit(self):
        from . import sizes as sizes_mod
        sizes_mod.VALUE_OF = self.sizes.value
        sizes_mod.FROZEN = lambda n: n in self.sizes.frozen
        for op in self.g.ops:
            k = Kernel(self, op)
            fn = getattr(self, "k_" + op.kind, None)
            if fn is None:
                raise TranslateError(f"internal error: no emitter for op kind '{op.kind}'", op.line)
            fn(k, op)
            self.kernels.append(k)
        return self.text()

    def text(self):
        g, sz = self.g, self.sizes
        out = []
        for n in g.notes:
            out.append("# " + n if n else "#")
        ranged = any(t.range is not None for t in g.tensors)
        out.append("air 1.1;" if ranged else "air 1;")   # 1.1: indexing with data
        out.append("")
        used = set()
        for t in g.tensors:
            for e in list(t.shape) + list(t.range or ()):
                used |= {s.name for s in sympy.sympify(e).free_symbols}
        params = [n for n in sz.symbols if n in used and n not in sz.frozen]
        consts = [n for n in sz.symbols if n in used and n in sz.frozen]
        if params:
            out.append("param " + ", ".join(f"{n} = {sz.values[n]}" for n in params) + ";")
        if consts:
            out.append("const " + ", ".join(f"{n} = {sz.values[n]}" for n in consts) + ";")
        if params or consts:
            out.append("")
        body = "\n".join(ln for k in self.kernels for ln in k.lines)
        words = set(re.findall(r"[A-Za-z_]\w*", body))
        for t in g.tensors:
            if t.role == "tmp" and t.name not in words:
                continue      # never read or written (torch.empty whose values no op reads)
            dims = "[" + ", ".join(pr(e) for e in t.shape) + "]" if t.shape else ""
            c = f"   # {t.comment}" if t.comment else ""
            dist = f" {t.dist}" if t.role == "rand" else ""     # docs/air.md, random tensors
            if t.range is not None:     # AIR 1.1: the values an index input may hold
                dist = f" in {pr(t.range[0])}..{pr(t.range[1])}"
            out.append(f"{t.role:<3} {t.name}{dims}: {t.dtype}{dist};{c}")
        for t in g.tensors:     # a fact the op guarantees, stated so the bound may use it
            if t.distinct and (t.role != "tmp" or t.name in words):
                out.append(f"assume distinct({t.name}) >= {t.distinct};   # {t.distinct_why}")
        for j, k in enumerate(self.kernels):
            op = k.op
            shared = op.attrs.get("shared_kernel")   # ops that are one kernel (a torch._foreach_* call)
            if shared and j and self.kernels[j - 1].op.attrs.get("shared_kernel") == shared:
                continue
            out.append("")
            where = f"{g.source}:{op.line}" if op.line else g.source
            desc = f"{op.path or '(top)'}: {op.aten}" if op.aten else (op.path or "(top)")
            out.append(f"# {desc}  ({where})")
            if op.attrs.get("src"):
                out.append("#   " + op.attrs["src"])
            attrs = [f"{a} = {op.attrs[a]}" for a in ("math", "group") if op.attrs.get(a)]
            attr = f" [{', '.join(attrs)}]" if attrs else ""
            out.append(f"kernel {op.name}{attr} {{")
            out.extend(k.lines)
            for nxt in self.kernels[j + 1:]:
                if not shared or nxt.op.attrs.get("shared_kernel") != shared:
                    break
                out.extend(nxt.lines)
            out.append("}")
        return "\n".join(out) + "\n", params, consts

    # -- kernels ---------------------------------------------------------------------------
    def k_pointwise(self, k, op):
        """out[idx] = f(operands at idx, broadcast), one store."""
        out = op.out
        its, n = self.full_loops(k, out.shape)
        args = [self.val(k, x, its) for x in op.ins]
        k.assign(k.ref(out, its), "=", op.attrs["f"](args, its))
        k.close(n)

    def k_matmul(self, k, op):
        """out[b.., m, n] = beta*c + alpha * sum_k a[b.., m, k] * b[b.., k, n] (+ bias);
        a or b of rank 1 drop m or n (torch.matmul's rules)."""
        a, b, out = op.ins[0], op.ins[1], op.out
        c, bias = op.attrs.get("c"), op.attrs.get("bias")
        alpha, beta = op.attrs.get("alpha", 1), op.attrs.get("beta", 1)
        ra, rb, ro = len(a.shape), len(b.shape), len(out.shape)
        its = k.iters(ro)
        (kk,) = k.iters(1, "r")
        K = a.shape[-1]
        n = k.open_for(its, [(0, s) for s in out.shape])
        # index of a: batch dims broadcast from the output's leading dims, then m, k
        m_it = its[ro - 2] if (ra >= 2 and rb >= 2) else (its[ro - 1] if ra >= 2 else None)
        n_it = its[ro - 1] if rb >= 2 else None
        nb_out = ro - (1 if ra >= 2 else 0) - (1 if rb >= 2 else 0)
        bat = its[:nb_out]

        def operand_idx(v, r, tail):
            nb = r - len(tail)
            sub = bat[len(bat) - nb:] if nb else []
            bi = [0 if sympy.sympify(s) == 1 else e for s, e in zip(v.shape[:nb], sub)]
            return bi + tail

        ia = operand_idx(a, ra, ([m_it] if ra >= 2 else []) + [kk])
        ib = operand_idx(b, rb, [kk] + ([n_it] if rb >= 2 else []))
        acc_t, acc = self.accumulator(k, op, its)
        k.assign(acc, "=", "0")
        k.open_for([kk], [(0, K)])
        k.assign(acc, "+=", f"{k.ref(a, ia)} * {k.ref(b, ib)}")
        k.close()
        expr = acc if alpha == 1 else f"{flit(alpha)} * {acc}"
        if c is not None and beta != 0:
            cv = k.ref(c, bidx(c, its))
            expr = f"{expr} + " + (cv if beta == 1 else f"{flit(beta)} * {cv}")
        if bias is not None:
            expr = f"{expr} + {k.ref(bias, bidx(bias, its))}"
        if acc_t is not None or expr != acc:
            k.assign(k.ref(out, its), "=", expr)
        k.close(n)

    def accumulator(self, k, op, its):
        """(tmp or None, the AIR text of the accumulator at its) of a contraction: bf16/f16
        outputs sum in an f32 tmp and integer outputs in a tmp of their own type, each stored
        to the output once; f32 and f64 outputs sum in place."""
        out = op.out
        if out.dtype in LOW or out.dtype in ("i64", "i32", "i8", "u8"):
            acc_t = self.new_tmp(op.name + "_acc", out.shape, "f32" if out.dtype in LOW else out.dtype,
                                 "the accumulator: f32 inside the kernel, rounded once")
            return acc_t, k.tref(acc_t, its)
        return None, k.ref(out, its)

    def k_einsum(self, k, op):
        """torch.einsum of one or two operands: out[output labels] = the sum over the other
        labels of the operands' product, each operand read at its labels' iterators (a label
        repeated in one operand reads its diagonal; a size-1 dim that broadcasts reads 0)."""
        labs, outl, size = op.attrs["labels"], op.attrs["out"], op.attrs["size"]
        out = op.out
        red = [c for c in dict.fromkeys(c for ls in labs for c in ls) if c not in outl]
        its = k.iters(len(outl))
        rits = k.iters(len(red), "r")
        it_of = dict(zip(outl, its))
        it_of.update(zip(red, rits))
        n = k.open_for(its, [(0, size[c]) for c in outl])

        def at(x, ls):
            return [sympy.Integer(0) if sympy.sympify(d) == 1 and sympy.sympify(size[c]) != 1
                    else it_of[c] for d, c in zip(x.shape, ls)]
        prod = " * ".join(k.ref(x, at(x, ls)) for x, ls in zip(op.ins, labs))
        if not red:
            k.assign(k.ref(out, its), "=", prod)
        else:
            acc_t, acc = self.accumulator(k, op, its)
            k.assign(acc, "=", "0")
            k.open_for(rits, [(0, size[c]) for c in red])
            k.assign(acc, "+=", prod)
            k.close()
            if acc_t is not None:
                k.assign(k.ref(out, its), "=", acc)
        k.close(n)

    def k_reduce(self, k, op):
        """out[kept] = op over the reduced dims of f(operands); sum, mean, amax, amin, prod,
        var, std (two passes: the mean, then the squared deviations)."""
        x0, out = op.ins[0], op.out
        shape = op.attrs["shape"]            # the shape reduced over (operands broadcast to it)
        rd = sorted(op.attrs["dims"])
        keep = op.attrs.get("keepdim", False)
        red = op.attrs["op"]
        f = op.attrs.get("f") or (lambda a, i: a[0])
        its = k.iters(len(shape))
        outer = [its[d] for d in range(len(shape)) if d not in rd]
        inner = [its[d] for d in rd]
        oidx = [(0 if d in rd else its[d]) for d in range(len(shape))] if keep else outer
        count = sympy.Integer(1)
        for d in rd:
            count *= shape[d]
        n = k.open_for(outer, [(0, shape[d]) for d in range(len(shape)) if d not in rd])
        low = out.dtype in LOW or any(getattr(x, "dtype", "") in LOW for x in op.ins)
        accdt = "f64" if out.dtype == "f64" else "f32"
        need_tmp = low or red in ("var", "std", "logsumexp") or out.dtype != accdt
        kept_shape = [shape[d] for d in range(len(shape)) if d not in rd]
        if need_tmp:
            acc_t = self.new_tmp(op.name + "_acc", kept_shape, accdt, f"{red} accumulator")
            acc = k.tref(acc_t, outer)
        else:
            acc = k.ref(out, oidx)
        args = lambda: [self.val(k, x, its) for x in op.ins]
        if red in ("argmax", "argmin"):
            self._arg_extreme(k, op, red, f(args(), its), outer, inner, rd, shape, kept_shape,
                              "f64" if x0.dtype == "f64" else "f32", k.ref(out, oidx), oidx)
            k.close(n)
            return
        if red == "logsumexp":      # the max first, so that exp never overflows
            m = k.tref(self.new_tmp(op.name + "_max", kept_shape, accdt, "the max"), outer)
            k.assign(m, "=", "-inf")
            ni = k.open_for(inner, [(0, shape[d]) for d in rd])   # none for a 0-d input
            k.assign(m, "max=", f(args(), its))
            k.close(ni)
            f0 = f
            f = lambda a, i: f"exp({f0(a, i)} - {m})"
        init = {"logsumexp": "0", "sum": "0", "mean": "0", "var": "0", "std": "0", "amax": "-inf", "amin": "inf",
                "prod": "1"}[red]
        aop = {"logsumexp": "+=", "sum": "+=", "mean": "+=", "var": "+=", "std": "+=", "amax": "max=",
               "amin": "min=", "prod": "*="}[red]
        k.assign(acc, "=", init)
        ni = k.open_for(inner, [(0, shape[d]) for d in rd])
        k.assign(acc, aop, f(args(), its))
        k.close(ni)
        final = acc
        if red == "logsumexp":
            final = f"{m} + log({acc})"
        if red == "mean":
            final = f"{acc} / {_val(count)}"
        if red in ("var", "std"):
            mean_t = self.new_tmp(op.name + "_mean", kept_shape, accdt, "the mean")
            mean = k.tref(mean_t, outer)
            k.assign(mean, "=", f"{acc} / {_val(count)}")
            k.assign(acc, "=", "0")
            ni = k.open_for(inner, [(0, shape[d]) for d in rd])
            dev = f"({f(args(), its)} - {mean})"
            k.assign(acc, "+=", f"{dev} * {dev}")
            k.close(ni)
            corr = op.attrs.get("correction", 1)
            denom = count - corr
            final = f"{acc} / {_val(denom)}"
            if red == "std":
                final = f"sqrt({final})"
        post = op.attrs.get("post")
        if post:
            final = post(final)
        if need_tmp or final != acc:   # a separate accumulator is always stored to the output
            k.assign(k.ref(out, oidx), "=", final)
        k.close(n)

    def _arg_extreme(self, k, op, red, x, outer, inner, rd, shape, kept_shape, accdt, out, out_idx):
        """argmax / argmin: the running extreme in a tmp and, where an element beats it
        strictly, its index over the reduced dims (row-major, as PyTorch's index into the
        flattened dims), so the first of equal extremes is kept, as PyTorch returns it."""
        values = op.attrs.get("values")      # max.dim / min.dim: the values are an output
        if values is not None:
            m = k.ref(values, bidx(values, list(out_idx)))
        else:
            m = k.tref(self.new_tmp(op.name + "_max" if red == "argmax" else op.name + "_min",
                                    kept_shape, accdt, "the running " + red[3:]), outer)
        lin = sympy.Integer(0)
        for d in rd:
            lin = lin * shape[d] + inner[rd.index(d)]
        self.affine(lin)
        cmp, upd = (">", "max=") if red == "argmax" else ("<", "min=")
        k.assign(m, "=", "-inf" if red == "argmax" else "inf")
        k.assign(out, "=", "0")
        ni = k.open_for(inner, [(0, shape[d]) for d in rd])
        k.assign(out, "=", f"select({x} {cmp} {m}, {pr(lin)}, {out})")
        k.assign(m, upd, x)
        k.close(ni)

    def k_topk(self, k, op):
        """topk along one dim: k passes (k is small, torch_index.topk), pass j keeping the
        largest (smallest) element strictly beyond its running value that no earlier pass
        took; the values and the indices are written in place as the running ones, so the
        first of equal values is kept, and the indices are in 0..n (their declared range)."""
        x, idx, vals = op.ins[0], op.out, op.attrs["values"]
        d, kk, largest = op.attrs["dim"], op.attrs["k"], op.attrs["largest"]
        shape = x.shape
        its = k.iters(len(shape))
        outer = [its[j] for j in range(len(shape)) if j != d]
        n = k.open_for(outer, [(0, shape[j]) for j in range(len(shape)) if j != d])

        def at(t, j):
            ix = list(its)
            ix[d] = j
            return k.ref(t, ix)
        xv = k.ref(x, its)
        cmp = ">" if largest else "<"
        for j in range(kk):
            v, i = at(vals, j), at(idx, j)
            k.assign(v, "=", "-inf" if largest else "inf")
            k.assign(i, "=", "0")
            k.open_for([its[d]], [(0, shape[d])])
            cond = f"{xv} {cmp} {v}" + "".join(f" and {pr(its[d])} != {at(idx, p)}"
                                                for p in range(j))
            k.assign(i, "=", f"select({cond}, {pr(its[d])}, {i})")
            k.assign(v, "=", f"select({cond}, {xv}, {v})")
            k.close()
        k.close(n)

    def k_softmax(self, k, op):
        """softmax / log_softmax along one dim: the row max, the sum of exp, then the output."""
        x, out, d = op.ins[0], op.out, op.attrs["dim"]
        shape = x.shape
        its = k.iters(len(shape))
        outer = [its[j] for j in range(len(shape)) if j != d]
        n = k.open_for(outer, [(0, shape[j]) for j in range(len(shape)) if j != d])
        kept = [shape[j] for j in range(len(shape)) if j != d]
        m_t = self.new_tmp(op.name + "_max", kept, "f32", "row max")
        s_t = self.new_tmp(op.name + "_sum", kept, "f32", "row sum of exp")
        m, s = k.tref(m_t, outer), k.tref(s_t, outer)
        xv = k.ref(x, its)
        k.assign(m, "=", "-inf")
        k.open_for([its[d]], [(0, shape[d])])
        k.assign(m, "max=", xv)
        k.close()
        k.assign(s, "=", "0")
        k.open_for([its[d]], [(0, shape[d])])
        k.assign(s, "+=", f"exp({xv} - {m})")
        k.close()
        k.open_for([its[d]], [(0, shape[d])])
        if op.attrs.get("log"):
            k.assign(k.ref(out, its), "=", f"{xv} - {m} - log({s})")
        else:
            k.assign(k.ref(out, its), "=", f"exp({xv} - {m}) / {s}")
        k.close()
        k.close(n)

    def k_softmax_backward(self, k, op):
        """_softmax_backward_data: dx = y * (g - sum_d g * y); _log_softmax_backward_data:
        dx = g - exp(y) * sum_d g (one kernel: the row sum, then the output)."""
        g, y, out, d = op.ins[0], op.ins[1], op.out, op.attrs["dim"]
        shape = y.shape
        its = k.iters(len(shape))
        outer = [its[j] for j in range(len(shape)) if j != d]
        n = k.open_for(outer, [(0, shape[j]) for j in range(len(shape)) if j != d])
        kept = [shape[j] for j in range(len(shape)) if j != d]
        s_t = self.new_tmp(op.name + "_dot", kept, "f32", "row sum of grad * output")
        s = k.tref(s_t, outer)
        gv, yv = k.ref(g, its), k.ref(y, its)
        k.assign(s, "=", "0")
        k.open_for([its[d]], [(0, shape[d])])
        k.assign(s, "+=", gv if op.attrs.get("log") else f"{gv} * {yv}")
        k.close()
        k.open_for([its[d]], [(0, shape[d])])
        k.assign(k.ref(out, its), "=", f"{gv} - exp({yv}) * {s}" if op.attrs.get("log")
                 else f"{yv} * ({gv} - {s})")
        k.close()
        k.close(n)

    def _row_stats(self, k, op, x, its, outer, inner, red_shape, kept, count, eps):
        """mean and rstd of x over inner for the index outer (f32 tmps): their AIR refs."""
        mean_t = self.new_tmp(op.name + "_mean", kept, "f32", "mean")
        rstd_t = self.new_tmp(op.name + "_rstd", kept, "f32", "rstd (the variance sum until finished)")
        m, r = k.tref(mean_t, outer), k.tref(rstd_t, outer)
        xv = k.ref(x, its)
        k.assign(m, "=", "0")
        k.open_for(inner, [(0, e) for e in red_shape])
        k.assign(m, "+=", xv)
        k.close()
        k.assign(m, "=", f"{m} / {_val(count)}")
        k.assign(r, "=", "0")
        k.open_for(inner, [(0, e) for e in red_shape])
        k.assign(r, "+=", f"({xv} - {m}) * ({xv} - {m})")
        k.close()
        k.assign(r, "=", f"rsqrt({r} / {_val(count)} + {flit(eps)})")
        return m, r

    def k_bn_backward(self, k, op):
        """Batch norm's backward in training mode, over N and the spatial dims per channel c
        (M elements).  part 'reduce': mean, invstd (the biased variance), sum_g = sum g,
        sum_gx = sum g * (x - mean); dweight = sum_gx * invstd, dbias = sum_g.  part 'elemt':
        dx = (g - sum_g / M - (x - mean) * invstd^2 * sum_gx / M) * invstd * weight.  In eval
        mode (attribute 'running': the running mean and variance) the statistics are those,
        constants of the step: the reduce part reads them, and dx = g * invstd * weight."""
        g, x = op.ins[0], op.ins[1]
        shape = x.shape
        r = len(shape)
        its = k.iters(r)
        red = [its[0]] + its[2:]
        red_shape = [shape[0]] + list(shape[2:])
        M = sympy.Integer(1)
        for e in red_shape:
            M *= e
        c = its[1]
        A = op.attrs
        mean, inv, sg, sgx = (k.tref(A[n].tensor, [c]) for n in ("mean", "invstd", "sum_g", "sum_gx"))
        gv, xv = k.ref(g, its), k.ref(x, its)
        n = k.open_for([c], [(0, shape[1])])
        running = A.get("running")
        if A["part"] == "reduce" and running is not None:
            k.assign(mean, "=", k.ref(running[0], [c]))
            k.assign(inv, "=", f"rsqrt({k.ref(running[1], [c])} + {flit(A['eps'])})")
            k.assign(sg, "=", "0")
            k.assign(sgx, "=", "0")
            k.open_for(red, [(0, e) for e in red_shape])
            k.assign(sg, "+=", gv)
            k.assign(sgx, "+=", f"{gv} * ({xv} - {mean})")
            k.close()
        if A["part"] == "reduce" and running is None:
            k.assign(mean, "=", "0")
            k.open_for(red, [(0, e) for e in red_shape])
            k.assign(mean, "+=", xv)
            k.close()
            k.assign(mean, "=", f"{mean} / {_val(M)}")
            k.assign(inv, "=", "0")
            k.assign(sg, "=", "0")
            k.assign(sgx, "=", "0")
            k.open_for(red, [(0, e) for e in red_shape])
            k.assign(inv, "+=", f"({xv} - {mean}) * ({xv} - {mean})")
            k.assign(sg, "+=", gv)
            k.assign(sgx, "+=", f"{gv} * ({xv} - {mean})")
            k.close()
            k.assign(inv, "=", f"rsqrt({inv} / {_val(M)} + {flit(A['eps'])})")
        if A["part"] == "reduce":
            if A.get("dweight") is not None:
                k.assign(k.ref(A["dweight"], [c]), "=", f"{sgx} * {inv}")
            if A.get("dbias") is not None:
                k.assign(k.ref(A["dbias"], [c]), "=", sg)
        else:
            w = A.get("weight")
            wv = f" * {k.ref(w, [c])}" if w is not None else ""
            k.open_for(red, [(0, e) for e in red_shape])
            if running is not None:
                k.assign(k.ref(op.out, its), "=", f"{gv} * {inv}{wv}")
            else:
                k.assign(k.ref(op.out, its), "=",
                         f"({gv} - {sg} / {_val(M)} - ({xv} - {mean}) * {inv} * {inv} * {sgx} / {_val(M)})"
                         f" * {inv}{wv}")
            k.close()
        k.close(n)

    def _norm_input_grad(self, k, op, what, gw, xh, rs, outer, outer_shape, inner, bounds,
                         out, count):
        """Inside the loops of one normalised set (a row, a group: outer): a = sum gw, b =
        sum gw * xhat over inner (f32 tmps), then out = rstd * (gw - a/count - xhat * b/count):
        the input's gradient of a layer or group norm (gw: grad times the weight)."""
        a_t = self.new_tmp(op.name + "_a", outer_shape, "f32", f"{what} sum of grad * weight")
        b_t = self.new_tmp(op.name + "_b", outer_shape, "f32", f"{what} sum of grad * weight * xhat")
        av, bv = k.tref(a_t, outer), k.tref(b_t, outer)
        k.assign(av, "=", "0")
        k.assign(bv, "=", "0")
        k.open_for(inner, bounds)
        k.assign(av, "+=", gw)
        k.assign(bv, "+=", f"{gw} * {xh}")
        k.close()
        k.open_for(inner, bounds)
        k.assign(out, "=", f"{rs} * ({gw} - {av} / {_val(count)} - {xh} * {bv} / {_val(count)})")
        k.close()

    def k_layer_norm_backward(self, k, op):
        """native_layer_norm_backward.  part 'input': per row, the statistics, a = sum g*w,
        b = sum g*w*xhat, then dx = rstd * (g*w - a/N - xhat * b/N).  part 'params': dweight =
        sum over rows of g * xhat, dbias = sum over rows of g (the statistics per row again)."""
        g, x = op.ins[0], op.ins[1]
        nd, eps = op.attrs["ndims"], op.attrs["eps"]
        shape = x.shape
        r = len(shape)
        its = k.iters(r)
        outer, inner = its[:r - nd], its[r - nd:]
        red_shape, outer_shape = shape[r - nd:], shape[:r - nd]
        count = sympy.Integer(1)
        for e in red_shape:
            count *= e
        gv, xv = k.ref(g, its), k.ref(x, its)
        if op.attrs["part"] == "input":
            w = op.attrs.get("weight")
            n = k.open_for(outer, [(0, e) for e in outer_shape])
            m, rs = self._row_stats(k, op, x, its, outer, inner, red_shape, list(outer_shape), count, eps)
            gw = f"{gv} * {k.ref(w, inner)}" if w is not None else gv
            self._norm_input_grad(k, op, "row", gw, f"({xv} - {m}) * {rs}", rs, outer,
                                  list(outer_shape), inner, [(0, e) for e in red_shape],
                                  k.ref(op.out, its), count)
            k.close(n)
            return
        dw, db = op.attrs.get("dweight"), op.attrs.get("dbias")
        n = k.open_for(inner, [(0, e) for e in red_shape])
        for t in (dw, db):
            if t is not None:
                k.assign(k.ref(t, inner), "=", "0")
        k.close(n)
        n = k.open_for(outer, [(0, e) for e in outer_shape])
        m, rs = self._row_stats(k, op, x, its, outer, inner, red_shape, list(outer_shape), count, eps)
        k.open_for(inner, [(0, e) for e in red_shape])
        if dw is not None:
            k.assign(k.ref(dw, inner), "+=", f"{gv} * ({xv} - {m}) * {rs}")
        if db is not None:
            k.assign(k.ref(db, inner), "+=", gv)
        k.close()
        k.close(n)

    def _norm(self, k, op, outer_dims, red_dims, shape, affine_fn, rms=False):
        """Statistics over red_dims for each index of outer_dims (f32 tmps), then the output
        out = (x - mean) * rstd (or x * rstd for RMS) then affine_fn(value, its)."""
        x, out, eps = op.ins[0], op.out, op.attrs["eps"]
        its = k.iters(len(shape))
        outer = [its[j] for j in outer_dims]
        inner = [its[j] for j in red_dims]
        count = sympy.Integer(1)
        for j in red_dims:
            count *= shape[j]
        kept = [shape[j] for j in outer_dims]
        n = k.open_for(outer, [(0, shape[j]) for j in outer_dims])
        xv = k.ref(x, its)
        rstd_t = self.new_tmp(op.name + "_rstd", kept, "f32", "rstd (the variance sum until finished)")
        r = k.tref(rstd_t, outer)
        if not rms:
            mean_t = self.new_tmp(op.name + "_mean", kept, "f32", "mean")
            m = k.tref(mean_t, outer)
            k.assign(m, "=", "0")
            k.open_for(inner, [(0, shape[j]) for j in red_dims])
            k.assign(m, "+=", xv)
            k.close()
            k.assign(m, "=", f"{m} / {_val(count)}")
        k.assign(r, "=", "0")
        k.open_for(inner, [(0, shape[j]) for j in red_dims])
        k.assign(r, "+=", f"{xv} * {xv}" if rms else f"({xv} - {m}) * ({xv} - {m})")
        k.close()
        k.assign(r, "=", f"rsqrt({r} / {_val(count)} + {flit(eps)})")
        # the output loops: everything but the outer dims, in order
        rest = [its[j] for j in range(len(shape)) if j not in outer_dims]
        k.open_for(rest, [(0, shape[j]) for j in range(len(shape)) if j not in outer_dims])
        base = f"{xv} * {r}" if rms else f"({xv} - {m}) * {r}"
        k.assign(k.ref(out, its), "=", affine_fn(base, its))
        k.close()
        k.close(n)

    def k_layer_norm(self, k, op):
        x, w, b = op.ins[0], op.attrs.get("weight"), op.attrs.get("bias")
        nd = op.attrs["ndims"]
        r = len(x.shape)
        tail = list(range(r - nd, r))

        def aff(v, its):
            return _affine(k, v, w, b, its[r - nd:])
        self._norm(k, op, list(range(r - nd)), tail, x.shape, aff, rms=op.attrs.get("rms", False))

    def _groups(self, k, x, G):
        """The loops of a group norm over x [N, C, *] in G groups: (iterators n, group, channel
        in group, spatial..., the channel's expression, x's index, the (channel, spatial)
        bounds of one group, the elements of one group)."""
        shape = list(x.shape)
        C = shape[1]
        cgv = self.sizes.value(C) // G            # channels per group
        cg = fdiv(C, G) if G > 1 else C
        its = k.iters(len(shape) + 1)
        nn_, g, cc, sp = its[0], its[1], its[2], its[3:]
        ch = g * cg + cc if G > 1 and cgv > 1 else (g if cgv == 1 else cc)
        count = sympy.sympify(cg)
        for s in shape[2:]:
            count *= s
        inner_b = [(0, cg if cgv > 1 else 1)] + [(0, s) for s in shape[2:]]
        return nn_, g, cc, sp, ch, [nn_, ch] + sp, inner_b, count

    def _group_stats(self, k, op, x, G, n_, g, inner, inner_b, full, count, eps):
        """Inside the (n, group) loops: the group's mean and rstd (f32 tmps), their refs."""
        m_t = self.new_tmp(op.name + "_mean", [x.shape[0], G], "f32", "mean")
        r_t = self.new_tmp(op.name + "_rstd", [x.shape[0], G], "f32", "rstd")
        m, r = k.tref(m_t, [n_, g]), k.tref(r_t, [n_, g])
        xv = k.ref(x, full)
        k.assign(m, "=", "0")
        k.open_for(inner, inner_b)
        k.assign(m, "+=", xv)
        k.close()
        k.assign(m, "=", f"{m} / {_val(count)}")
        k.assign(r, "=", "0")
        k.open_for(inner, inner_b)
        k.assign(r, "+=", f"({xv} - {m}) * ({xv} - {m})")
        k.close()
        k.assign(r, "=", f"rsqrt({r} / {_val(count)} + {flit(eps)})")
        return m, r

    def k_group_norm(self, k, op):
        """group_norm (and instance_norm: one group per channel) over [N, C, *]: the statistics
        of each (n, group) over the group's channels and the spatial dims."""
        x, out, G = op.ins[0], op.out, op.attrs["groups"]
        w, b, eps = op.attrs.get("weight"), op.attrs.get("bias"), op.attrs["eps"]
        nn_, g, cc, sp, ch, full, inner_b, count = self._groups(k, x, G)
        n = k.open_for([nn_, g], [(0, x.shape[0]), (0, G)])
        m, r = self._group_stats(k, op, x, G, nn_, g, [cc] + sp, inner_b, full, count, eps)
        k.open_for([cc] + sp, inner_b)
        k.assign(k.ref(out, full), "=", _affine(k, f"({k.ref(x, full)} - {m}) * {r}", w, b, [ch]))
        k.close()
        k.close(n)

    def k_group_norm_backward(self, k, op):
        """native_group_norm_backward over [N, C, *] in G groups of cnt elements.  part
        'input': per (n, group) the statistics again, a = sum g*w, b = sum g*w*xhat, then dx =
        rstd * (g*w - a/cnt - xhat * b/cnt).  part 'params': dweight[c] = sum over n and the
        spatial dims of g * xhat, dbias[c] = sum of g (the statistics per (n, group) again)."""
        g, x, G, eps = op.ins[0], op.ins[1], op.attrs["groups"], op.attrs["eps"]
        nn_, gi, cc, sp, ch, full, inner_b, count = self._groups(k, x, G)
        inner = [cc] + sp
        gv, xv = k.ref(g, full), k.ref(x, full)
        if op.attrs["part"] == "input":
            w = op.attrs.get("weight")
            n = k.open_for([nn_, gi], [(0, x.shape[0]), (0, G)])
            m, rs = self._group_stats(k, op, x, G, nn_, gi, inner, inner_b, full, count, eps)
            gw = f"{gv} * {k.ref(w, [ch])}" if w is not None else gv
            self._norm_input_grad(k, op, "group", gw, f"({xv} - {m}) * {rs}", rs, [nn_, gi],
                                  [x.shape[0], G], inner, inner_b, k.ref(op.out, full), count)
            k.close(n)
            return
        dw, db = op.attrs.get("dweight"), op.attrs.get("dbias")
        (c,) = k.iters(1, "c")
        n = k.open_for([c], [(0, x.shape[1])])
        for t in (dw, db):
            if t is not None:
                k.assign(k.ref(t, [c]), "=", "0")
        k.close(n)
        n = k.open_for([nn_, gi], [(0, x.shape[0]), (0, G)])
        m, rs = self._group_stats(k, op, x, G, nn_, gi, inner, inner_b, full, count, eps)
        k.open_for(inner, inner_b)
        if dw is not None:
            k.assign(k.ref(dw, [ch]), "+=", f"{gv} * ({xv} - {m}) * {rs}")
        if db is not None:
            k.assign(k.ref(db, [ch]), "+=", gv)
        k.close()
        k.close(n)

    def k_channel_norm(self, k, op):
        """Batch norm with the batch's statistics (training mode): per channel, over N and the
        spatial dims, with the biased variance."""
        x = op.ins[0]
        w, b = op.attrs.get("weight"), op.attrs.get("bias")

        def aff(v, its):
            return _affine(k, v, w, b, [its[1]])
        r = len(x.shape)
        self._norm(k, op, [1], [0] + list(range(2, r)), x.shape, aff)

    def k_cosine(self, k, op):
        """cosine_similarity along dim: x.y / max(|x| |y|, eps) (PyTorch >= 2.0 clamps the
        product of the norms)."""
        x, y, out, d, eps = op.ins[0], op.ins[1], op.out, op.attrs["dim"], op.attrs["eps"]
        shape = op.attrs["shape"]
        its = k.iters(len(shape))
        outer = [its[j] for j in range(len(shape)) if j != d]
        kept = [shape[j] for j in range(len(shape)) if j != d]
        n = k.open_for(outer, [(0, shape[j]) for j in range(len(shape)) if j != d])
        ts = [self.new_tmp(op.name + s, kept, "f32", c) for s, c in
              (("_dot", "x.y"), ("_xx", "x.x"), ("_yy", "y.y"))]
        dot, xx, yy = (k.tref(t, outer) for t in ts)
        xv, yv = self.val(k, x, its), self.val(k, y, its)
        for t in (dot, xx, yy):
            k.assign(t, "=", "0")
        k.open_for([its[d]], [(0, shape[d])])
        k.assign(dot, "+=", f"{xv} * {yv}")
        k.assign(xx, "+=", f"{xv} * {xv}")
        k.assign(yy, "+=", f"{yv} * {yv}")
        k.close()
        k.assign(k.ref(out, outer), "=", f"{dot} / sqrt(max({xx} * {yy}, {flit(eps * eps)}))")
        k.close(n)

    def k_batch_norm(self, k, op):
        """Inference batch norm: y = (x - running_mean[c]) * rsqrt(running_var[c] + eps) * w + b."""
        x, out = op.ins[0], op.out
        rm, rv, w, b, eps = (op.attrs.get(n) for n in ("mean", "var", "weight", "bias", "eps"))
        its, n = self.full_loops(k, out.shape)
        c = [its[1]]
        v = f"({k.ref(x, its)} - {k.ref(rm, c)}) * rsqrt({k.ref(rv, c)} + {flit(eps)})"
        k.assign(k.ref(out, its), "=", _affine(k, v, w, b, c))
        k.close(n)

    def k_conv(self, k, op):
        """Convolution (1d/2d/3d, stride, padding, dilation, groups) and transposed
        convolution; padding as `if` conditions, so padded elements are never read."""
        x, w, out = op.ins[0], op.ins[1], op.out
        bias = op.attrs.get("bias")
        st, pd, dl = op.attrs["stride"], op.attrs["padding"], op.attrs["dilation"]
        G, tr = op.attrs["groups"], op.attrs["transposed"]
        nsp = len(x.shape) - 2
        xs, ws, os_ = x.shape, w.shape, out.shape
        if tr:
            cg = fdiv(xs[1], G) if G > 1 else xs[1]     # input channels per group
            kg = ws[1]                                  # output channels per group
        else:
            cg = ws[1]
            kg = fdiv(ws[0], G) if G > 1 else ws[0]
        its = k.iters(2 + nsp)
        n_it, k_it, o = its[0], its[1], its[2:]
        (c_it,) = k.iters(1, "c")
        r = k.iters(nsp, "r")
        if G > 1:
            g = fdiv(k_it, kg)
            cin = g * cg + c_it
            C_red = cg
        else:
            g, cin, C_red = 0, c_it, xs[1]
        n = k.open_for(its, [(0, s) for s in os_])
        acc_t = None
        if out.dtype in LOW:
            acc_t = self.new_tmp(op.name + "_acc", os_, "f32", "the accumulator (f32, rounded once)")
            acc = k.tref(acc_t, its)
        else:
            acc = k.ref(out, its)
        k.assign(acc, "=", "0")
        k.open_for([c_it] + r, [(0, C_red)] + [(0, ws[2 + j]) for j in range(nsp)])
        if not tr:
            conds, xi = window(o, r, st, dl, pd, xs[2:], [bool(p) for p in pd])
        else:
            conds, xi = [], []
            for j in range(nsp):
                e = o[j] + pd[j] - r[j] * dl[j]
                conds += [(e, ">=", 0)]
                if st[j] > 1:
                    conds += [(sympy.Mod(e, st[j]), "==", 0)]
                conds += [(fdiv(e, st[j]), "<", xs[2 + j])]
                xi.append(fdiv(e, st[j]))
        nif = k.open_if(conds)
        if tr:
            wi = [cin, k_it - g * kg if G > 1 else k_it] + r
        else:
            wi = [k_it, c_it] + r
        k.assign(acc, "+=", f"{k.ref(x, [n_it, cin] + xi)} * {k.ref(w, wi)}")
        k.close(nif + 1)
        expr = acc
        if bias is not None:
            expr = f"{acc} + {k.ref(bias, [k_it])}"
        if expr != acc or acc_t is not None:   # the f32 accumulator is rounded into out
            k.assign(k.ref(out, its), "=", expr)
        k.close(n)

    def k_conv_weight_grad(self, k, op):
        """A convolution's weight gradient: dW[k, c, r..] = sum over n and the output positions
        o of dY[n, k, o] * X[n, g*cg + c, o*stride + r*dilation - padding] (padding as `if`
        conditions, as k_conv)."""
        g, x, out = op.ins[0], op.ins[1], op.out
        st, pd, dl, G = op.attrs["stride"], op.attrs["padding"], op.attrs["dilation"], op.attrs["groups"]
        nsp = len(x.shape) - 2
        xs, ws, gs = x.shape, out.shape, g.shape
        cg = ws[1]
        kg = fdiv(ws[0], G) if G > 1 else ws[0]
        its = k.iters(2 + nsp)
        k_it, c_it, r = its[0], its[1], its[2:]
        (n_it,) = k.iters(1, "n")
        o = k.iters(nsp, "o")
        cin = fdiv(k_it, kg) * cg + c_it if G > 1 else c_it
        n = k.open_for(its, [(0, s) for s in ws])
        acc_t, acc = self.accumulator(k, op, its)
        k.assign(acc, "=", "0")
        k.open_for([n_it] + o, [(0, gs[0])] + [(0, gs[2 + j]) for j in range(nsp)])
        conds, xi = window(o, r, st, dl, pd, xs[2:], [bool(p) for p in pd])
        nif = k.open_if(conds)
        k.assign(acc, "+=", f"{k.ref(g, [n_it, k_it] + o)} * {k.ref(x, [n_it, cin] + xi)}")
        k.close(nif + 1)
        if acc_t is not None:
            k.assign(k.ref(out, its), "=", acc)
        k.close(n)

    def _window_acc(self, k, op, kind, its):
        """The running max or sum of a pooling window (an f32 tmp for a bf16/f16 average),
        initialised."""
        out = op.out
        if kind == "avg" and out.dtype in LOW:
            acc = k.tref(self.new_tmp(op.name + "_acc", out.shape, "f32", "window sum"), its)
        else:
            acc = k.ref(out, its)
        k.assign(acc, "=", "-inf" if kind == "max" else "0")
        return acc

    def k_pool(self, k, op):
        """max / avg pooling over the trailing spatial dims (stride, padding, dilation)."""
        x, out = op.ins[0], op.out
        ks, st, pd, dl = (op.attrs[a] for a in ("kernel", "stride", "padding", "dilation"))
        kind = op.attrs["kind"]
        nsp = len(ks)
        lead = len(x.shape) - nsp
        its = k.iters(len(out.shape))
        r = k.iters(nsp, "r")
        n = k.open_for(its, [(0, s) for s in out.shape])
        acc = self._window_acc(k, op, kind, its)
        k.open_for(r, [(0, s) for s in ks])
        check = [bool(p) or bool(op.attrs.get("ceil_mode")) for p in pd]
        conds, xi = window(its[lead:], r, st, dl, pd, x.shape[lead:], check)
        nif = k.open_if(conds)
        k.assign(acc, "max=" if kind == "max" else "+=", k.ref(x, list(its[:lead]) + xi))
        k.close(nif + 1)
        idx = op.attrs.get("indices")
        if kind == "max" and idx is not None:
            # the first maximum in scan order, as its flat position in the input plane
            iv = k.ref(idx, its)
            span = 1
            for e in x.shape[lead:]:
                span *= e
            k.assign(iv, "=", pr(span))
            r = k.iters(nsp, "r")
            k.open_for(r, [(0, s) for s in ks])
            conds, xi = window(its[lead:], r, st, dl, pd, x.shape[lead:], check)
            flat = flat_position(xi, x.shape[lead:])
            nif = k.open_if(conds)
            k.assign(iv, "min=", f"select({k.ref(x, list(its[:lead]) + xi)} == {acc}, {pr(flat)}, {pr(span)})")
            k.close(nif + 1)
        if kind == "avg":
            div = op.attrs.get("divisor_override")
            if div:
                d = flit(div)
            elif op.attrs.get("count_include_pad", True) and not op.attrs.get("ceil_mode"):
                d = flit(math.prod(ks))
            else:
                parts = []
                for j in range(nsp):
                    lo = its[lead + j] * st[j] - pd[j]
                    hi_pad = lo + ks[j]
                    if op.attrs.get("count_include_pad", True):
                        parts.append(f"(min({pr(hi_pad)}, {pr(x.shape[lead + j] + pd[j])}) - ({pr(lo)}))")
                    else:
                        parts.append(f"(min({pr(hi_pad)}, {pr(x.shape[lead + j])}) - max({pr(lo)}, 0))")
                d = " * ".join(parts)
            k.assign(k.ref(out, its), "=", f"{acc} / ({d})")
        k.close(n)

    def k_pool_backward(self, k, op):
        """max_pool*_with_indices_backward: dx = 0, then for each window, the element its
        index names (the flat position in the input plane) gets the window's gradient: dx at
        each window position += select(index == position, dy, 0)."""
        g, out = op.ins[0], op.out
        idx = op.ins[1] if op.attrs["kind"] == "max" else None
        ks, st, pd, dl = (op.attrs[a] for a in ("kernel", "stride", "padding", "dilation"))
        nsp = len(ks)
        lead = len(out.shape) - nsp
        z = k.iters(len(out.shape), "z")
        n = k.open_for(z, [(0, s) for s in out.shape])
        k.assign(k.ref(out, z), "=", "0")
        k.close(n)
        its = k.iters(len(g.shape))
        n = k.open_for(its, [(0, s) for s in g.shape])
        r = k.iters(nsp, "r")
        k.open_for(r, [(0, s) for s in ks])
        check = [bool(p) or bool(op.attrs.get("ceil_mode")) for p in pd]
        conds, xi = window(its[lead:], r, st, dl, pd, out.shape[lead:], check)
        nif = k.open_if(conds)
        if idx is None:     # avg: each element of the window gets its share
            k.assign(k.ref(out, list(its[:lead]) + xi), "+=",
                     f"{k.ref(g, its)} / {flit(float(op.attrs['divisor']))}")
        else:
            flat = flat_position(xi, out.shape[lead:])
            k.assign(k.ref(out, list(its[:lead]) + xi), "+=",
                     f"select({k.ref(idx, its)} == {pr(flat)}, {k.ref(g, its)}, 0.0)")
        k.close(nif + 1)
        k.close(n)

    def k_place(self, k, op):
        """slice_backward / select_backward: out = 0, then out at the view's positions = g."""
        g, out = op.ins[0], op.out
        kind, d, start, step = op.attrs["place"]
        z = k.iters(len(out.shape), "z")
        n = k.open_for(z, [(0, s) for s in out.shape])
        k.assign(k.ref(out, z), "=", "0")
        k.close(n)
        its = k.iters(len(g.shape))
        n = k.open_for(its, [(0, s) for s in g.shape])
        if kind == "select":
            oi = list(its[:d]) + [sympy.Integer(start)] + list(its[d:])
        else:
            oi = list(its)
            oi[d] = start + its[d] * step
        k.assign(k.ref(out, oi), "=", k.ref(g, its))
        k.close(n)

    def k_adaptive_pool(self, k, op):
        """Adaptive avg/max pooling: window [floor(o*H/OH), ceil((o+1)*H/OH))."""
        x, out, kind = op.ins[0], op.out, op.attrs["kind"]
        nsp = op.attrs["nsp"]
        lead = len(x.shape) - nsp
        its = k.iters(len(out.shape))
        r = k.iters(nsp, "r")
        n = k.open_for(its, [(0, s) for s in out.shape])
        bounds, cnt = [], []
        for j in range(nsp):
            H, OH = x.shape[lead + j], out.shape[lead + j]
            o = its[lead + j]
            lo, hi = fdiv(o * H, OH), cdiv((o + 1) * H, OH)
            if sympy.sympify(OH) == 1:
                lo, hi = sympy.Integer(0), H
            bounds.append((lo, hi))
            cnt.append(f"({pr(hi)} - ({pr(lo)}))")
        acc = self._window_acc(k, op, kind, its)
        k.open_for(r, bounds)
        k.assign(acc, "max=" if kind == "max" else "+=", k.ref(x, list(its[:lead]) + r))
        k.close()
        if kind == "avg":
            k.assign(k.ref(out, its), "=", f"{acc} / ({' * '.join(cnt)})")
        k.close(n)

    def k_cat(self, k, op):
        """cat: one copy loop per operand, each at its offset along dim."""
        out, d = op.out, op.attrs["dim"]
        off = sympy.Integer(0)
        for x in op.ins:
            its = k.iters(len(x.shape))
            n = k.open_for(its, [(0, s) for s in x.shape])
            oi = list(its)
            oi[d] = its[d] + off
            k.assign(k.ref(out, oi), "=", k.ref(x, its))
            k.close(n)
            off = off + x.shape[d]

    def k_pad(self, k, op):
        """constant pad: out = x inside, the value outside."""
        x, out, pads, value = op.ins[0], op.out, op.attrs["pads"], op.attrs.get("value", 0.0)
        its, n = self.full_loops(k, out.shape)
        nd = len(pads) // 2
        r = len(out.shape)
        xi, conds = list(its), []
        for j in range(nd):
            dim = r - 1 - j
            lo = pads[2 * j]
            e = its[dim] - lo
            xi[dim] = e
            conds += [(e, ">=", 0), (e, "<", x.shape[dim])]
        nif = k.open_if(conds)
        k.assign(k.ref(out, its), "=", k.ref(x, xi))
        if nif:
            k.depth -= 1
            k.line("} else {")
            k.depth += 1
            k.assign(k.ref(out, its), "=", flit(value))
            k.close()
        k.close(n)

    def k_cumsum(self, k, op):
        """cumsum (cumprod) along dim as a scan: out[.., 0] = x[.., 0];
        out[.., j] = out[.., j-1] + x[.., j] (or *)."""
        x, out, d = op.ins[0], op.out, op.attrs["dim"]
        its = k.iters(len(x.shape))
        outer = [its[j] for j in range(len(x.shape)) if j != d]
        n = k.open_for(outer, [(0, x.shape[j]) for j in range(len(x.shape)) if j != d])
        z = list(its)
        z[d] = sympy.Integer(0)
        low = out.dtype in LOW
        if low:
            acc_t = self.new_tmp(op.name + "_acc", [x.shape[j] for j in range(len(x.shape)) if j != d],
                                 "f32", "running sum")
            acc = k.tref(acc_t, outer)
            k.assign(acc, "=", k.ref(x, z))
            k.assign(k.ref(out, z), "=", acc)
        else:
            k.assign(k.ref(out, z), "=", k.ref(x, z))
        k.open_for([its[d]], [(1, x.shape[d])])
        sign = "*" if op.attrs.get("prod") else "+"
        if low:
            k.assign(acc, sign + "=", k.ref(x, its))
            k.assign(k.ref(out, its), "=", acc)
        else:
            p = list(its)
            p[d] = its[d] - 1
            k.assign(k.ref(out, its), "=", f"{k.ref(out, p)} {sign} {k.ref(x, its)}")
        k.close()
        k.close(n)

    def k_scatter(self, k, op):
        """A scatter (AIR 1.1): out = x, left out when the op updates x in place, then for
        every j of the domain out[target(j)] op= src at j, the target holding data reads
        (`+=`: duplicates combine; `=`: one of them lands, docs/air-1.1-indexing.md 2.3)."""
        x, src, out, a = op.ins[0], op.ins[1], op.out, op.attrs
        if x.root().tensor is not out.root().tensor:
            its, n = self.full_loops(k, out.shape)
            k.assign(k.ref(out, its), "=", k.ref(x, its))
            k.close(n)
        its, n = self.full_loops(k, a["domain"], "j")
        v = self.val(k, src, its)
        if a["alpha"] != 1:
            v = f"{flit(a['alpha'])} * {v}"
        k.assign(k.ref(out, a["target"](its)), a["op"], v)
        k.close(n)

    def k_nll(self, k, op):
        """nll_loss with class-index targets (cross_entropy's after its log_softmax): per
        target element the loss -w[t] * logp[.., t, ..] (ins[0], the pick through the
        targets), with label smoothing ls: (1 - ls) times it plus ls / C times
        -sum_c w[c] * logp[.., c, ..]; 0 where t is an ignore_index inside 0..C (one outside
        the targets' declared range never occurs); reduced by none, sum, or mean over the
        picked weights (the count of targets not ignored without weights)."""
        pick, tgt, out, a = op.ins[0], op.ins[1], op.out, op.attrs
        w, wpick, red, ig, ls = a["weight"], a["wpick"], a["reduction"], a["ignore"], a["smoothing"]
        its = k.iters(len(tgt.shape))
        acc = den = None
        if red != 0:
            acc = k.ref(out, []) if out.dtype == "f32" else \
                k.tref(self.new_tmp(op.name + "_acc", [], "f32", "the loss sum"), [])
            k.assign(acc, "=", "0")
            if red == 1 and (wpick is not None or ig is not None):
                den = k.tref(self.new_tmp(op.name + "_den", [], "f32", "the sum of the weights "
                                          "(the count of targets not ignored)"), [])
                k.assign(den, "=", "0")
        n = k.open_for(its, [(0, s) for s in tgt.shape])
        wt = k.ref(wpick, its) if wpick is not None else None
        term = f"-({wt} * {k.ref(pick, its)})" if wt else f"-{k.ref(pick, its)}"
        if ls:
            sm = k.tref(self.new_tmp(op.name + "_smooth", list(tgt.shape), "f32",
                                     "the sum over the classes (label smoothing)"), its)
            (c,) = k.iters(1, "c")
            d = a["dim"]
            lp = k.ref(a["logp"], list(its[:d]) + [c] + list(its[d:]))
            k.assign(sm, "=", "0")
            k.open_for([c], [(0, a["C"])])
            k.assign(sm, "+=", f"{k.ref(w, [c])} * {lp}" if w is not None else lp)
            k.close()
            term = f"{flit(1 - ls)} * ({term}) - {flit(ls)} * {sm} / {_val(a['C'])}"
        keep = f"{k.ref(tgt, its)} != {ig}" if ig is not None else None
        if keep:
            term = f"select({keep}, {term}, 0.0)"
        if red == 0:
            k.assign(k.ref(out, its), "=", term)
        else:
            k.assign(acc, "+=", term)
            if den is not None:
                one = wt or "1.0"
                k.assign(den, "+=", f"select({keep}, {one}, 0.0)" if keep else one)
        k.close(n)
        if red == 1:
            count = sympy.Integer(1)
            for s in tgt.shape:
                count *= s
            k.assign(k.ref(out, []), "=", f"{acc} / {den if den else _val(count)}")
        elif red == 2 and acc != k.ref(out, []):
            k.assign(k.ref(out, []), "=", acc)

    def k_sdpa(self, k, op):
        """scaled_dot_product_attention as one kernel (a flash / efficient / math backend):
        scores, softmax and the weighted sum of v; the score rows are f32 tmps of the kernel."""
        q, kk, v, out = op.ins[0], op.ins[1], op.ins[2], op.out
        mask, causal, scale = op.attrs.get("mask"), op.attrs.get("causal"), op.attrs["scale"]
        L, S, E, Ev = q.shape[-2], kk.shape[-2], q.shape[-1], v.shape[-1]
        nb = len(out.shape) - 2
        its = k.iters(nb + 2)
        bat, i, e_out = its[:nb], its[nb], its[nb + 1]
        (j,) = k.iters(1, "j")
        (d,) = k.iters(1, "d")
        gq = op.attrs.get("gqa", 1)

        def kv_idx(t, tail):
            bi = list(bat)
            if gq > 1 and nb >= 1:
                bi[-1] = fdiv(bat[-1], gq)
            return [0 if sympy.sympify(s) == 1 else e for s, e in zip(t.shape[:nb], bi[len(bi) - (len(t.shape) - 2):])] + tail
        sc_t = self.new_tmp(op.name + "_scores", list(out.shape[:nb]) + [L, S], "f32", "scores (on chip)")
        m_t = self.new_tmp(op.name + "_max", list(out.shape[:nb]) + [L], "f32", "row max")
        s_t = self.new_tmp(op.name + "_sum", list(out.shape[:nb]) + [L], "f32", "row sum")
        n = k.open_for(bat + [i], [(0, s) for s in out.shape[:nb]] + [(0, L)])
        hi = sympy.Min(i + 1, S) if causal else S   # is_causal: the top-left triangle j <= i
        sc = k.tref(sc_t, bat + [i, j])
        m, s = k.tref(m_t, bat + [i]), k.tref(s_t, bat + [i])
        k.assign(m, "=", "-inf")
        k.open_for([j], [(0, hi)])
        k.assign(sc, "=", "0")
        k.open_for([d], [(0, E)])
        k.assign(sc, "+=", f"{k.ref(q, bidx_lead(q, bat) + [i, d])} * {k.ref(kk, kv_idx(kk, [j, d]))}")
        k.close()
        sv = f"{sc} * {flit(scale)}" if isinstance(scale, (int, float)) and not isinstance(scale, sympy.Basic) \
            else f"{sc} * rsqrt(1.0 * {_val(scale)})"
        if mask is not None:
            mi = bidx(mask, bat + [i, j])
            if mask.dtype == "bool":
                sv = f"select({k.ref(mask, mi)}, {sv}, -inf)"
            else:
                sv = f"{sv} + {k.ref(mask, mi)}"
        k.assign(sc, "=", sv)
        k.assign(m, "max=", sc)
        k.close()
        k.assign(s, "=", "0")
        k.open_for([j], [(0, hi)])
        k.assign(s, "+=", f"exp({sc} - {m})")
        k.close()
        k.open_for([e_out], [(0, Ev)])
        acc_t = self.new_tmp(op.name + "_acc", out.shape, "f32", "output accumulator")
        acc = k.tref(acc_t, its)
        k.assign(acc, "=", "0")
        k.open_for([j], [(0, hi)])
        k.assign(acc, "+=", f"exp({sc} - {m}) * {k.ref(v, kv_idx(v, [j, e_out]))}")
        k.close()
        k.assign(k.ref(out, its), "=", f"{acc} / {s}")
        k.close()
        if op.attrs.get("lse") is not None:     # a training step's: the backward reads it
            k.assign(k.ref(op.attrs["lse"], bat + [i]), "=", f"{m} + log({s})")
        k.close(n)

    def k_sdpa_backward(self, k, op):
        """Flash attention's backward (a training step's, train.py) as one kernel, for the
        rows of dO, q, o and lse and the keys j (j <= i when causal): D = rowsum(dO * o);
        P = exp(q.k * scale - lse); dV += P dO; dP = dO.v; dS = P (dP - D); dQ += dS k scale;
        dK += dS q scale: the five products of FlashAttention-2's backward, no more (the scores
        are recomputed from lse, not from a second pass); f32 accumulators, stored once.  With
        gqa query heads per key head, a key head's dK and dV sum over its query heads."""
        g, q, kk, v, o, lse = op.ins
        dq, dk, dv = op.out, op.attrs["dk"], op.attrs["dv"]
        causal, scale, gq = op.attrs["causal"], op.attrs["scale"], op.attrs.get("gqa", 1)
        nb = len(q.shape) - 2
        L, S, E, Ev = q.shape[-2], kk.shape[-2], q.shape[-1], v.shape[-1]
        lead, lead_k = list(q.shape[:nb]), list(kk.shape[:nb])
        its = k.iters(nb + 1)
        bat, i = its[:nb], its[nb]
        kb = bat[:-1] + [fdiv(bat[-1], gq)] if gq > 1 else bat     # the query's key head
        (j,) = k.iters(1, "j")
        (d,) = k.iters(1, "d")
        (e,) = k.iters(1, "e")
        acc = {n: self.new_tmp(op.name + "_" + n, ld + shp, "f32", f"the {n} accumulator (f32)")
               for n, ld, shp in (("dq", lead, [L, E]), ("dk", lead_k, [S, E]),
                                  ("dv", lead_k, [S, Ev]))}
        D_t = self.new_tmp(op.name + "_D", lead + [L], "f32", "rowsum(dO * O)")
        sc_t = self.new_tmp(op.name + "_s", lead + [L, S], "f32", "scores (on chip)")
        dp_t = self.new_tmp(op.name + "_dp", lead + [L, S], "f32", "dO . v (on chip)")
        sf = flit(scale)
        # zero the key-side accumulators
        for name, (rows, cols, it) in (("dk", (S, E, d)), ("dv", (S, Ev, e))):
            n = k.open_for(bat + [j, it], [(0, s) for s in lead_k] + [(0, rows), (0, cols)])
            k.assign(k.tref(acc[name], bat + [j, it]), "=", "0")
            k.close(n)
        n = k.open_for(bat + [i], [(0, s) for s in lead] + [(0, L)])
        Dv = k.tref(D_t, bat + [i])
        k.assign(Dv, "=", "0")
        k.open_for([e], [(0, Ev)])
        k.assign(Dv, "+=", f"{k.ref(g, bat + [i, e])} * {k.ref(o, bat + [i, e])}")
        k.close()
        k.open_for([d], [(0, E)])
        k.assign(k.tref(acc["dq"], bat + [i, d]), "=", "0")
        k.close()
        hi = sympy.Min(i + 1, S) if causal else S
        k.open_for([j], [(0, hi)])
        sc, dp = k.tref(sc_t, bat + [i, j]), k.tref(dp_t, bat + [i, j])
        k.assign(sc, "=", "0")
        k.open_for([d], [(0, E)])
        k.assign(sc, "+=", f"{k.ref(q, bat + [i, d])} * {k.ref(kk, kb + [j, d])}")
        k.close()
        mask = op.attrs.get("mask")
        logit = f"{sc} * {sf}"
        if mask is not None and mask.dtype != "bool":
            logit = f"{logit} + {k.ref(mask, bidx(mask, bat + [i, j]))}"
        P = f"exp({logit} - {k.ref(lse, bat + [i])})"
        if mask is not None and mask.dtype == "bool":
            P = f"select({k.ref(mask, bidx(mask, bat + [i, j]))}, {P}, 0.0)"
        k.assign(sc, "=", P)                                                 # P
        k.assign(dp, "=", "0")
        k.open_for([e], [(0, Ev)])
        k.assign(dp, "+=", f"{k.ref(g, bat + [i, e])} * {k.ref(v, kb + [j, e])}")
        k.close()
        k.assign(dp, "=", f"{sc} * ({dp} - {Dv})")                              # dS
        # P and dS enter their products in the inputs' dtype, as FlashAttention-2 converts
        # them for the tensor cores (bf16/f16); the scale multiplies the sums once, at the store
        lo = q.dtype if q.dtype in LOW else None
        P = f"{lo}({sc})" if lo else sc
        dS = f"{lo}({dp})" if lo else dp
        k.open_for([e], [(0, Ev)])
        k.assign(k.tref(acc["dv"], kb + [j, e]), "+=", f"{P} * {k.ref(g, bat + [i, e])}")
        k.close()
        k.open_for([d], [(0, E)])
        k.assign(k.tref(acc["dq"], bat + [i, d]), "+=", f"{dS} * {k.ref(kk, kb + [j, d])}")
        k.assign(k.tref(acc["dk"], kb + [j, d]), "+=", f"{dS} * {k.ref(q, bat + [i, d])}")
        k.close()
        k.close()
        k.open_for([d], [(0, E)])
        k.assign(k.ref(dq, bat + [i, d]), "=", f"{k.tref(acc['dq'], bat + [i, d])} * {sf}")
        k.close()
        k.close(n)
        for name, out, (rows, cols, it) in (("dk", dk, (S, E, d)), ("dv", dv, (S, Ev, e))):
            n = k.open_for(bat + [j, it], [(0, s) for s in lead_k] + [(0, rows), (0, cols)])
            v_ = k.tref(acc[name], bat + [j, it])
            k.assign(k.ref(out, bat + [j, it]), "=", f"{v_} * {sf}" if name == "dk" else v_)
            k.close(n)

    def k_rnn(self, k, op):
        """nn.LSTM (with proj_size: h = W_hr (o tanh c)) / nn.GRU / nn.RNN as one kernel
        (docs/bounds.md, rule "recurrent layers"):
        per layer and direction, a loop over the time steps whose body computes every gate's
        pre-activation (both biases, then the input and the recurrent GEMM accumulated onto
        them, as cuDNN's GEMMs accumulate onto C), then the cell update.  The state after step
        t is the tmp `..._h[t + 1]` (`..._h[0]` the initial state), so every read of the
        previous step's state is affine; the reverse direction walks time from T - 1 down."""
        L, D = op.attrs["layers"], op.attrs["dirs"]
        seq_in = lambda v: (lambda idx: k.ref(v, idx))
        inp, width = seq_in(op.ins[0]), op.ins[0].shape[2]
        for l in range(L):
            if l == L - 1:
                out = seq_in(op.out)
            else:        # a layer's output sequence, which the next layer reads in the kernel
                y_t = self.new_tmp(f"{op.name}_l{l}_out", list(op.out.shape), op.out.dtype,
                                   f"the output sequence of layer {l}")
                out = lambda idx, y_t=y_t: k.tref(y_t, idx)
            for d in range(D):
                self._rnn_layer(k, op, l, d, inp, width, out)
            inp, width = out, op.out.shape[2]

    def _rnn_layer(self, k, op, l, d, inp, width, out):
        """One layer and direction of k_rnn: inp(idx) and out(idx) read and write the input and
        output sequences ([B, T, .] when batch_first, else [T, B, .])."""
        a = op.attrs
        mode, D, bf, H, T, B = a["mode"], a["dirs"], a["batch_first"], a["H"], a["T"], a["B"]
        P = a["P"]                  # the size of h: H, or an LSTM's proj_size
        w_ih, w_hh, b_ih, b_hh, w_hr = a["weights"][l][d]
        h0, c0 = a["h0"], a.get("c0")
        G = {"lstm": 4, "gru": 3}.get(mode, 1)
        sdt = op.out.dtype
        base = f"{op.name}_l{l}" + ("_reverse" if d else "")
        st = self.new_tmp(base + "_h", [T + 1, B, P], sdt, "the hidden state after each step")
        cs = self.new_tmp(base + "_c", [T + 1, B, H], sdt, "the cell state") if mode == "lstm" else None
        pre = self.new_tmp(base + "_gates", [T, B, (2 if mode == "gru" else G) * H], "f32",
                           "gate pre-activations: biases + W_ih x + W_hh h")
        seq = (lambda t, b, e: [b, t, e]) if bf else (lambda t, b, e: [t, b, e])
        lay = l * D + d
        inits = [(st, h0, P)] + ([(cs, c0, H)] if cs is not None else [])
        for size in dict.fromkeys(sz for _, _, sz in inits):    # one nest per state size
            b_it, j = k.iters(2)
            n = k.open_for([b_it, j], [(0, B), (0, size)])
            for state, init, sz in inits:
                if sz == size:
                    k.assign(k.tref(state, [0, b_it, j]), "=", k.ref(init, [lay, b_it, j]))
            k.close(n)
        (t,) = k.iters(1, "t")
        ts = t if d == 0 else T - 1 - t             # the time step the iteration reads
        k.open_for([t], [(0, T)])

        # the two GEMMs of a step: (the operand at (b, r), its width, the weight)
        x_part = (lambda bb, r: inp(seq(ts, bb, r)), width, w_ih)
        h_part = (lambda bb, r: k.tref(st, [t, bb, r]), P, w_hh)

        def gemms(acc, rows, biases, parts, off=0, step=0):
            """acc[t + step, b, g] = the biases' sum + sum over each part of operand[b, r] *
            W[off + g, r]: the accumulator starts at the biases, as a GEMM with C (beta = 1)."""
            bb, g = k.iters(2)
            n = k.open_for([bb, g], [(0, B), (0, rows)])
            ix = k.tref(acc, [t + step, bb, g])
            k.assign(ix, "=", " + ".join(k.ref(v, [g + off]) for v in biases if v is not None) or "0")
            for operand, w_len, w in parts:
                (r,) = k.iters(1, "r")
                k.open_for([r], [(0, w_len)])
                k.assign(ix, "+=", f"{operand(bb, r)} * {k.ref(w, [g + off, r])}")
                k.close()
            k.close(n)
        if mode == "gru":        # r and z sum both GEMMs; n keeps W_hn h + b_hn apart for r
            gemms(pre, 2 * H, [b_ih, b_hh], [x_part, h_part])
            xn = self.new_tmp(base + "_xn", [T, B, H], "f32", "W_in x + b_in")
            hn = self.new_tmp(base + "_hn", [T, B, H], "f32", "W_hn h + b_hn (scaled by r)")
            gemms(xn, H, [b_ih], [x_part], 2 * H)
            gemms(hn, H, [b_hh], [h_part], 2 * H)
        else:
            gemms(pre, G * H, [b_ih, b_hh], [x_part, h_part])
        bb, jj = k.iters(2)
        n = k.open_for([bb, jj], [(0, B), (0, H)])
        gate = lambda q: k.tref(pre, [t, bb, q * H + jj])
        h_prev, h_next = k.tref(st, [t, bb, jj]), k.tref(st, [t + 1, bb, jj])
        if w_hr is not None:     # o tanh(c') first, then projected: h' = W_hr (o tanh(c'))
            hf = self.new_tmp(base + "_hc", [T, B, H], "f32", "o * tanh(c) before the projection")
            h_next = k.tref(hf, [t, bb, jj])
        if mode == "lstm":       # gates i, f, g, o (PyTorch's order); c' = f c + i g, h' = o tanh(c')
            c_next = k.tref(cs, [t + 1, bb, jj])
            k.assign(c_next, "=", f"sigmoid({gate(1)}) * {k.tref(cs, [t, bb, jj])} + "
                                  f"sigmoid({gate(0)}) * tanh({gate(2)})")
            k.assign(h_next, "=", f"sigmoid({gate(3)}) * tanh({c_next})")
        elif mode == "gru":      # r, z, n: n = tanh(W_in x + b_in + r (W_hn h + b_hn)); h' = (h - n) z + n
            nn_ = f"tanh({k.tref(xn, [t, bb, jj])} + {k.tref(hn, [t, bb, jj])} * sigmoid({gate(0)}))"
            k.assign(h_next, "=", f"({h_prev} - {nn_}) * sigmoid({gate(1)}) + {nn_}")
        elif mode == "rnn_tanh":
            k.assign(h_next, "=", f"tanh({gate(0)})")
        else:
            k.assign(h_next, "=", f"max({gate(0)}, 0.0)")
        if w_hr is not None:
            k.close(n)
            gemms(st, P, [], [(lambda bb, r: k.tref(hf, [t, bb, r]), H, w_hr)], step=1)
            bb, jj = k.iters(2)
            n = k.open_for([bb, jj], [(0, B), (0, P)])
            h_next = k.tref(st, [t + 1, bb, jj])
        k.assign(out(seq(ts, bb, d * P + jj)), "=", h_next)
        k.close(n)
        k.close()
        for key, state, size in (("h_n", st, P), ("c_n", cs, H)):
            v = a.get(key)
            if v is None or state is None:
                continue
            bb, jj = k.iters(2)
            n = k.open_for([bb, jj], [(0, B), (0, size)])
            k.assign(k.ref(v, [lay, bb, jj]), "=", k.tref(state, [T, bb, jj]))
            k.close(n)


def window(o, r, st, dl, pd, extents, check):
    """The input positions o*stride + r*dilation - padding of a sliding window (convolution,
    its weight gradient, pooling, its backward), and the `if` conditions that keep them in
    0..extent where check[j] (a padded or ceil-mode dimension): (conds, positions)."""
    conds, xi = [], []
    for j in range(len(r)):
        e = o[j] * st[j] + r[j] * dl[j] - pd[j]
        if check[j]:
            conds += [(e, ">=", 0), (e, "<", extents[j])]
        xi.append(e)
    return conds, xi


def flat_position(xi, plane):
    """A max pool index: the position xi in the input plane of extents `plane`, row-major."""
    flat = xi[0]
    for j in range(1, len(xi)):
        flat = flat * plane[j] + xi[j]
    return flat


def _affine(k, v, w, b, idx):
    """v * w[idx] + b[idx], each factor when present (a norm's affine step)."""
    if w is not None:
        v = f"{v} * {k.ref(w, idx)}"
    if b is not None:
        v = f"{v} + {k.ref(b, idx)}"
    return v


def bidx_lead(t, bat):
    nb = len(t.shape) - 2
    sub = bat[len(bat) - nb:] if nb else []
    return [0 if sympy.sympify(s) == 1 else e for s, e in zip(t.shape[:nb], sub)]


def _val(e):
    """An integer size as a value expression (params allowed anywhere in values)."""
    s = pr(e)
    return s if sympy.sympify(e).is_Atom else "(" + s + ")"
