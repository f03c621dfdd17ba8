"""The frontend-neutral op graph that `solar translate` builds and emits as AIR.

A frontend (torch_frontend.py: a torch.export graph; a JAX frontend: a jaxpr) produces a Graph:

  * Tensor: a buffer that AIR declares (name, shape, dtype, role in/out/tmp).  Shapes are
    lists of sympy expressions in *size symbols* (sizes.Sizes), named after the module-level
    constants they came from (`batch_size`, `dim`) or plain integers.
  * Value: what an op reads or writes.  Either a Tensor seen through the identity, or a view
    of another Value through an index map (a function from the view's index expressions to
    the base's).  Views, reshapes, permutes, expands, slices ... are Values, never ops: they
    cost nothing, as in eager PyTorch.
    An index expression may hold a *data read* (data_read: `ids[t]` in `E[ids[t], d]`, AIR
    1.1), the value of an integer `in` tensor that carries a value range (Tensor.range).
  * Op: one kernel of eager PyTorch: its kind ('matmul', 'pointwise', 'softmax', ...), the
    Values it reads (or Python scalars), the Value it writes, attributes, the module path and
    the source line of the Python call.

emit_air.py turns a Graph into AIR text; nothing in it knows about PyTorch.
"""
import sympy
from sympy.core.function import AppliedUndef


class TranslateError(Exception):
    """An error the user sees as `FILE:LINE: error: MESSAGE` (line may be None), exit 1."""

    def __init__(self, message, line=None, status=1):
        super().__init__(message)
        self.message = message
        self.line = line
        self.status = status


class Tensor:
    def __init__(self, name, shape, dtype, role):
        self.name, self.shape, self.dtype, self.role = name, list(shape), dtype, role
        self.comment = ""
        self.range = None           # (lo, hi) sympy: every element in lo..hi (AIR 1.1)
        self.distinct = None        # at least this many different values, a fact of its op
        self.distinct_why = ""      # (a top k's indices: `assume distinct(t) >= k`)


class Value:
    """A Tensor through an index map.  base is a Value (a view of it) or None (then tensor is
    the storage, read through `fn` when set).  inv, when set, maps base indices back to view
    indices: the view is invertible (reshape, permute, unsqueeze of size 1) and an op that
    produced the base can write through the view instead."""

    def __init__(self, shape, dtype, tensor=None, base=None, fn=None, inv=None):
        self.shape, self.dtype = list(shape), dtype
        self.tensor, self.base, self.fn, self.inv = tensor, base, fn, inv

    def index(self, idx):
        """(Tensor, [index expressions]) for the element idx of this value."""
        idx = list(idx)
        if self.base is None:
            return self.tensor, (self.fn(idx) if self.fn else idx)
        return self.base.index(self.fn(idx))

    def root(self):
        v = self
        while v.base is not None:
            v = v.base
        return v


class Op:
    def __init__(self, kind, name, ins, out, attrs=None, path="", line=None, aten=""):
        self.kind, self.name, self.ins, self.out = kind, name, list(ins), out
        self.attrs = dict(attrs or {})
        self.path, self.line, self.aten = path, line, aten


class Graph:
    def __init__(self, sizes):
        self.sizes = sizes          # sizes.Sizes: the size symbols and their values
        self.tensors = []           # declaration order: inputs, parameters, outputs, tmps
        self.ops = []
        self.source = ""            # the model file, for comments
        self.notes = []             # lines for the header comment

    def add_tensor(self, t):
        self.tensors.append(t)
        return t


INT = ("i64", "i32", "i8", "u8")     # the dtypes an index tensor may have


def set_range(sizes, t, hi):
    """Declares every element of tensor t in 0..hi (sizes: sizes.Sizes); a tensor that
    indexes two extents keeps the smaller (each op requires its own)."""
    if t.range is None or sizes.value(hi) < sizes.value(t.range[1]):
        t.range = (sympy.Integer(0), sympy.sympify(hi))


TOPK_MOST = 4   # the largest k a topk is translated with (docs/bounds.md, "Selections")


def topk_results(sizes, op, values, k, n):
    """What a topk kernel op (either frontend's) writes besides its indices op.out: the values
    (attrs["values"]); the indices are in 0..n, which solar check proves of the kernel, and a
    row's k picks differ, so the tensor holds at least min(k, n) different values (stated as
    AIR 1.1's assumption, so a gather through them is charged that many rows at the least)."""
    op.attrs["values"] = values
    t = op.out.tensor
    set_range(sizes, t, n)
    m = min(k, sizes.value(n))
    if m >= 2:
        t.distinct = m
        t.distinct_why = f"each row of a top {k} holds {k} different indices"


def data_read(t, ix):
    """The value of tensor t at the index ix as a term of an index expression (AIR 1.1,
    `ids[t]` in `E[ids[t], d]`): a sympy function application named after t, which
    sizes.pr prints as `t[ix]`.  One level only: ix itself holds no data read."""
    if any(is_data(e) for e in ix):
        raise TranslateError(f"internal error: a data read inside the index of '{t.name}'")
    return sympy.Function(t.name, integer=True)(*ix)


def is_data(e):
    """Whether the index expression e holds a data read."""
    e = sympy.sympify(e)
    return any(isinstance(a, AppliedUndef) for a in sympy.preorder_traversal(e))


def sym(name):
    return sympy.Symbol(name, integer=True, positive=True)
