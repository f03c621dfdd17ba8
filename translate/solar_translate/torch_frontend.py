"""PyTorch frontend: a Model file -> torch.export graph -> op graph (opgraph.py).

The model is built on the `meta` device (no memory is allocated for weights or activations,
so a model of tens of GB translates on a small machine), left in the mode it was constructed
in (as KernelBench and `solar validate`'s harness run it), and exported with torch.export.export, whose default IR
keeps the operators as the user called them (linear, conv2d, layer_norm, softmax,
scaled_dot_product_attention): each is one kernel of eager PyTorch.  Views are index maps.

Sizes: every dimension of an input, parameter or buffer is traced back to the module-level
integer constants (KernelBench's convention) by building the model once more per constant,
with that constant doubled, and seeing which dimensions move (sizes.leaf_sizes; builds on
`meta` cost milliseconds).  The dimensions of intermediate values follow from their operands by each
operator's shape rule; where no rule applies, a dimension is matched by value to the one
constant that has it, else it is a literal.
"""
import math
import operator
import os
import re

import sympy

from .opgraph import Graph, Op, Tensor, TranslateError, Value
from .sizes import Sizes, fdiv, leaf_sizes, pr
from .source import exec_file, first_line, model_line

DTYPES = {}


def _dtypes(torch):
    if not DTYPES:
        DTYPES.update({torch.float32: "f32", torch.float64: "f64", torch.bfloat16: "bf16",
                       torch.float16: "f16", torch.int64: "i64", torch.int32: "i32",
                       torch.int8: "i8", torch.uint8: "u8", torch.bool: "bool"})
        for n, a in (("float8_e4m3fn", "f8e4m3"), ("float8_e5m2", "f8e5m2")):
            if hasattr(torch, n):
                DTYPES[getattr(torch, n)] = a
    return DTYPES


# ------------------------------------------------------------------------------------------
# loading the model file


def forward_line(model, path):
    """The line of `def forward` of the model's class, when it is in the model file (an error
    that no line of the file raised, e.g. forward() called with the wrong arguments)."""
    import inspect
    try:
        fn = type(model).forward
        if os.path.realpath(inspect.getsourcefile(fn)) == os.path.realpath(path):
            return inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        pass
    return None


def load_module(path, defines):
    mod = exec_file(path, "_solar_model_", "model")
    if not isinstance(getattr(mod, "Model", None), type):
        jax = callable(getattr(mod, "fn", None)) and any(
            getattr(v, "__name__", "").split(".")[0] == "jax" for v in vars(mod).values()
            if type(v).__name__ == "module")
        raise TranslateError("no class Model (the file must define class Model(nn.Module), "
                             "get_inputs() and optionally get_init_inputs())"
                             + ("; it defines fn and imports jax: translate it with --jax" if jax else ""), 1)
    if not callable(getattr(mod, "get_inputs", None)):
        raise TranslateError("no function get_inputs() (it returns the inputs of forward())", 1)
    for k, v in defines.items():
        setattr(mod, k, v)
    return mod


def build(torch, mod, path, device="meta"):
    """(model, inputs) built on the meta device, the model in the mode it was constructed in
    (nn.Module's default is training mode; KernelBench runs models as constructed, and so does
    validate's harness): batch norm then uses batch statistics, dropout with p > 0 is refused."""
    def make(dev):
        with torch.device(dev):
            init = mod.get_init_inputs() if callable(getattr(mod, "get_init_inputs", None)) else []
            return mod.Model(*init), mod.get_inputs()
    try:
        try:
            model, inputs = make(device)
        except Exception as e:  # noqa: BLE001
            # A value read from a tensor while building (Swin: `.item()` of a torch.linspace
            # for the drop rates, a size from a tensor): meta tensors have no values, so the
            # model is built for real on the CPU and then moved to meta.  The memory is the
            # model's parameters, once per build.
            if device != "meta" or "meta" not in str(e):
                raise
            model, inputs = make("cpu")
            attribute_buffers(torch, model)
            model = model.to("meta")
            inputs = [x.to("meta") if isinstance(x, torch.Tensor) else x for x in inputs] \
                if isinstance(inputs, (list, tuple)) else inputs
    except Exception as e:  # noqa: BLE001
        raise TranslateError(f"building the model raised {first_line(e)}", model_line(e, path))
    if not isinstance(inputs, (list, tuple)):
        raise TranslateError(f"get_inputs() returned {type(inputs).__name__}, not a list")
    if not isinstance(model, torch.nn.Module):
        raise TranslateError("Model(...) is not a torch.nn.Module")
    attribute_buffers(torch, model)
    return model, list(inputs)


def attribute_buffers(torch, model):
    """Plain tensor attributes of the model's modules (`self.hidden = torch.randn(B, H)` in
    __init__, neither parameter nor buffer) become non-persistent buffers of the same name:
    torch.export refuses a tensor attribute that forward assigns ('must be registered as
    buffers') and lifts one that forward only reads as a constant the harness cannot bind.  As
    buffers they are `in` tensors named after their path, as the harness binds them.  Their
    dotted paths are kept on the model (Frontend.state)."""
    names = list(getattr(model, "_solar_attribute_buffers", ()))
    for path, m in model.named_modules():
        for k, v in list(vars(m).items()):
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) \
                    and not k.startswith("__"):
                delattr(m, k)
                m.register_buffer(k, v, persistent=False)
                names.append(f"{path}.{k}" if path else k)
    object.__setattr__(model, "_solar_attribute_buffers", names)


def leaf_shapes(torch, model, inputs):
    d = {}
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor):
            d[("in", i)] = tuple(x.shape)
    for n, p in model.named_parameters():
        d[("p", n)] = tuple(p.shape)
    for n, b in model.named_buffers():
        d[("p", n)] = tuple(b.shape)
    return d


# ------------------------------------------------------------------------------------------
# the graph


class Frontend:
    def __init__(self, torch, path, mod, model, inputs, sizes, leaf_exprs):
        self.torch, self.path, self.mod = torch, path, mod
        self.model, self.inputs, self.sizes = model, inputs, sizes
        self.leaf = leaf_exprs
        self.g = Graph(sizes)
        self.g.source = os.path.basename(path)
        self.env = {}
        self.knames = {}
        self.tnames = set()
        self.dt = _dtypes(torch)
        # AIR names of the tensor attributes made buffers (attribute_buffers)
        self.state = {n.replace(".", "_") for n in getattr(model, "_solar_attribute_buffers", ())}
        self.matmul_tf32 = bool(torch.backends.cuda.matmul.allow_tf32)
        self.cudnn_tf32 = bool(torch.backends.cudnn.allow_tf32)
        try:
            self.lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
        except OSError:
            self.lines = []

    # -- naming and location ---------------------------------------------------------------
    def where(self, node):
        st = node.meta.get("stack_trace") or ""
        line = None
        real = os.path.realpath(self.path)
        for m in re.finditer(r'File "([^"]+)", line (\d+)', st):
            if os.path.realpath(m.group(1)) == real:
                line = int(m.group(2))
        stack = node.meta.get("nn_module_stack") or {}
        path = ""
        if stack:
            v = list(stack.values())[-1]
            path = v[0] if isinstance(v, tuple) else str(v)
        return line, path

    def err(self, node, msg, why=""):
        """`MESSAGE (used by module.path)[: WHY]` at the node's source line."""
        line, path = self.where(node)
        return TranslateError(f"{msg} (used by {path or 'Model'})" + (f": {why}" if why else ""), line)

    def kname(self, path, op):
        from .emit_air import KEYWORDS
        base = re.sub(r"\W", "_", (path + "." if path else "") + op).strip("_") or "k"
        if base[0].isdigit() or base in KEYWORDS:
            base = "k_" + base
        n = self.knames.get(base, 0) + 1
        self.knames[base] = n
        return base if n == 1 else f"{base}_{n}"

    def tname(self, base):
        base = re.sub(r"\W", "_", base)
        if not re.match(r"[A-Za-z_]", base):
            base = "t_" + base
        name, k = base, 2
        from .emit_air import KEYWORDS
        while name in self.tnames or name in KEYWORDS or name in self.sizes.symbols:
            name, k = f"{base}_{k}", k + 1
        self.tnames.add(name)
        return name

    # -- shapes ----------------------------------------------------------------------------
    def dtype(self, node, val=None):
        val = node.meta.get("val") if val is None else val
        dt = self.dt.get(val.dtype)
        if dt is None:
            raise self.err(node, f"unsupported dtype {val.dtype}")
        return dt

    def sym_by_value(self, v, cands=()):
        if v == 1:
            return sympy.Integer(1)
        for c in cands:
            if self.sizes.value(c) == v:
                return sympy.sympify(c)
        names = self.sizes.by_value.get(v, [])
        if len(names) == 1:
            return self.sizes.symbols[names[0]]
        return sympy.Integer(v)

    def constant(self, ep, n, target, kind):
        """The value of a tensor constant of the graph (ep.constants[target]): a scalar tensor
        made in forward() on the CPU is its number; another is refused."""
        c = ep.constants.get(target) if target is not None else None
        if isinstance(c, self.torch.Tensor) and c.numel() == 1 and c.device.type != "meta":
            return c.item()
        raise TranslateError(f"unsupported graph input '{n.name}' ({kind}: a tensor "
                             "constant made in forward(); make it a parameter or buffer)")

    def generic_shape(self, node, vals):
        """The output shape: each dim from an operand's dim of the same value, aligned from the
        right (broadcasting), else any operand dim with that value, else by value."""
        shape = list(node.meta["val"].shape)
        r = len(shape)
        out = []
        for j, v in enumerate(shape):
            v = int(v)
            pick = None
            if v != 1:
                for x in vals:
                    if isinstance(x, Value):
                        jj = len(x.shape) - (r - j)
                        if 0 <= jj < len(x.shape) and self.sizes.value(x.shape[jj]) == v:
                            pick = x.shape[jj]
                            break
            if pick is None:
                cands = [s for x in vals if isinstance(x, Value) for s in x.shape]
                pick = self.sym_by_value(v, cands)
            out.append(pick)
        return out

    def new_out(self, node, shape, op_name, dtype=None):
        t = Tensor(self.tname(op_name), shape, dtype or self.dtype(node), "tmp")
        self.g.add_tensor(t)
        return Value(shape, t.dtype, tensor=t)

    # -- ops -------------------------------------------------------------------------------
    def add_op(self, node, kind, ins, out, attrs=None, opname=None):
        line, path = self.where(node)
        name = opname or self.kname(path, self.short(node))
        attrs = dict(attrs or {})
        if node.meta.get("solar_phase"):     # a training step's forward or backward (train.py)
            attrs.setdefault("group", node.meta["solar_phase"])
        if line and 0 < line <= len(self.lines):
            attrs["src"] = self.lines[line - 1].strip()
        op = Op(kind, name, ins, out, attrs, path, line, aten=self.aten(node))
        self.check_library_math(node, op)
        self.g.ops.append(op)
        return op

    def check_library_math(self, node, op):
        """A kernel a library runs (library_math.LIBRARY_MATH) must carry the fastest math mode
        the library may pick for f32 operands; a stricter one would make its bound unsound."""
        from .library_math import LIBRARY_MATH, library_math, stricter
        if op.kind not in LIBRARY_MATH or not op.ins or op.ins[0].dtype != "f32":
            return
        if op.kind == "einsum" and op.attrs.get("math") is None:
            return  # a step that only sums or permutes: no contraction
        want = library_math(self, op.kind, "f32")
        if stricter(op.attrs.get("math"), want):
            raise self.err(node, f"internal error: the {op.kind} kernel {op.name} has math mode "
                           f"{op.attrs.get('math') or 'strict'}, stricter than the library may "
                           f"use ({want}; docs/bounds.md#library-datapaths)")

    def short(self, node):
        t = node.target
        if hasattr(t, "_overloadpacket"):
            s = t._overloadpacket.__name__.rstrip("_") or "op"
        else:
            s = getattr(t, "__name__", "op")
        if node.meta.get("solar_phase") == "backward":
            # named after the forward call it differentiates (train.py): fc1_linear_backward_mm,
            # or the operator alone when it names the call (softmax_backward_data)
            call, s = node.meta.get("solar_call") or "grad", s.strip("_")
            return s if call in s and "backward" in s else f"{call}_backward_{s}"
        return s

    def aten(self, node):
        t = node.target
        return f"aten.{t._overloadpacket.__name__}.{t._overloadname}" if hasattr(t, "_overloadpacket") else str(t)

    def run(self, ep):
        from . import torch_ops
        sig = ep.graph_signature
        specs = {s.arg.name: s for s in sig.input_specs}
        ph = [n for n in ep.graph.nodes if n.op == "placeholder"]
        user_i = 0
        decl_user, decl_params = [], []
        for n in ph:
            spec = specs.get(n.name)
            kind = spec.kind.name if spec is not None else "USER_INPUT"
            val = n.meta.get("val")
            if kind == "USER_INPUT":
                if isinstance(val, (bool, int, float)) and not isinstance(val, self.torch.Tensor):
                    # a Python number (forward(A, s)): torch.export specializes it, so the graph
                    # reads its value as a literal, as eager passes it to each kernel; no tensor
                    self.env[n] = val
                    user_i += 1
                    self.g.notes.append(f"note: forward() argument '{n.name}' is the Python "
                                        f"{type(val).__name__} {val!r} of get_inputs(): the AIR "
                                        "holds it as a literal")
                    continue
                if not isinstance(val, self.torch.Tensor):
                    raise TranslateError(f"forward() argument '{n.name}' is not a tensor "
                                         f"({type(val).__name__}); only tensor and number inputs "
                                         "are supported")
                shape = self.leaf.get(("in", user_i)) or [sympy.Integer(int(s)) for s in val.shape]
                user_i += 1
                t = Tensor(self.tname(n.meta.get("solar_name", n.name)), shape, self.dtype(n), "in")
                decl_user.append(t)
            elif kind in ("PARAMETER", "BUFFER"):
                shape = self.leaf.get(("p", spec.target)) or [sympy.Integer(int(s)) for s in val.shape]
                t = Tensor(spec.target.replace(".", "_"), shape, self.dtype(n), "in")
                self.tnames.add(t.name)
                decl_params.append(t)
            else:
                self.env[n] = self.constant(ep, n, spec.target if spec is not None else None, kind)
                continue
            self.env[n] = Value(t.shape, t.dtype, tensor=t)
        self.g.tensors.extend(decl_user)
        self.g.tensors.extend(decl_params)
        self.user_inputs = set(t.name for t in decl_user)
        for n in ep.graph.nodes:
            if n.op == "call_function":
                self.env[n] = torch_ops.handle(self, n)
            elif n.op == "get_attr" and isinstance(ep.constants.get(n.target), self.torch.Tensor):
                # a training step's graph (make_fx) holds its tensor constants so; other
                # attributes (a higher-order op's subgraph, a pytree spec) are the op's business
                self.env[n] = self.constant(ep, n, n.target, "CONSTANT_TENSOR")
            elif n.op == "output":
                outs = n.args[0]
                mutated = [s for s in sig.output_specs if s.kind.name != "USER_OUTPUT"]
                user = [a for a, s in zip(outs, sig.output_specs) if s.kind.name == "USER_OUTPUT"]
                if mutated:
                    self.g.notes.append(f"note: forward() updates {', '.join(str(s.target) for s in mutated)} in place; "
                                        "the AIR keeps the computed values only")
                self.outputs(user)
        if getattr(self, "train", None):
            self.train_outputs()
        # drop parameters and buffers no op reads
        read = set()
        for op in self.g.ops:
            for x in list(op.ins) + [a for a in op.attrs.values() if isinstance(a, Value)]:
                if isinstance(x, Value):
                    read.add(x.root().tensor.name)
            read.add(op.out.root().tensor.name if isinstance(op.out, Value) else None)
        for t in self.outs:
            read.add(t.name)
        self.g.tensors = [t for t in self.g.tensors if t.role != "in" or t.name in read
                          or t.name in self.user_inputs or t.range is not None]
        self.sort_tensors()
        return self.g

    def sort_tensors(self):
        """Declaration order: inputs, parameters, outputs in the order forward() (or fn)
        returns them, which is the order the harness binds them in; then tmps."""
        order = {"in": 0, "inout": 0, "out": 1, "rand": 2, "tmp": 3}
        outs = {t.name: k for k, t in enumerate(self.outs)}
        self.g.tensors.sort(key=lambda t: (order[t.role], outs.get(t.name, 0)))

    def train_outputs(self):
        """A training step's outputs (train.py) named: the loss, then each parameter's gradient
        (PARAM_grad); with an optimizer, its kernels after them, the parameters inout."""
        from . import train as tr
        used, optimizer = self.train
        byname = {t.name: t for t in self.g.tensors}
        renames = [(self.outs[0], "loss")] + [(t, n.replace(".", "_") + "_grad")
                                              for t, n in zip(self.outs[1:], used)]
        for t, base in renames:
            self.tnames.discard(t.name)
            t.name = self.tname(base)
        if optimizer != "none":
            params = [byname[n.replace(".", "_")] for n in used]
            grads = [Value(t.shape, t.dtype, tensor=t) for t in self.outs[1:]]
            tr.optimizer_ops(self, params, grads, optimizer)

    def outputs(self, user):
        """Binds the forward outputs to `out` tensors: a tmp becomes the out tensor; a view of
        one (reshape, permute) is inverted so that its producer writes the out tensor."""
        self.outs = []
        seen = set()
        for k, a in enumerate(user):
            v = self.env.get(a) if hasattr(a, "op") else None
            if not isinstance(v, Value):
                raise TranslateError(f"forward() output {k} is not a tensor")
            root = v.root()
            chain, x, ok = [], v, True
            while x.base is not None:
                if x.inv is None:
                    ok = False
                chain.append(x)
                x = x.base
            rt = root.tensor
            if rt.role == "tmp" and ok and rt.name not in seen and root.fn is None:
                if not chain:
                    rt.role = "out"
                    seen.add(rt.name)
                    self.outs.append(rt)
                    continue
                # out tensor of the view's shape; the root writes through the inverse maps
                t = Tensor(rt.name, v.shape, rt.dtype, "out")
                invs = [c.inv for c in chain]          # each: base idx -> view idx

                def inv_all(idx, invs=invs[::-1]):
                    for f in invs:
                        idx = f(idx)
                    return idx
                self.g.tensors.remove(rt)
                self.g.add_tensor(t)
                root.tensor, root.fn = t, inv_all
                seen.add(rt.name)
                self.outs.append(t)
                continue
            # anything else is copied into a fresh out tensor (eager returns it without a kernel;
            # the copy is noted)
            t = Tensor(self.tname(f"out{k}"), v.shape, v.dtype, "out")
            self.g.add_tensor(t)
            ov = Value(v.shape, v.dtype, tensor=t)
            self.g.ops.append(Op("pointwise", self.kname("", f"output{k}_copy"), [v], ov,
                                 {"f": lambda a, i: a[0]}, aten="copy of an output view"))
            self.g.notes.append(f"note: output {k} is a view of an input or a non-invertible view; "
                                "it is copied (a kernel eager PyTorch does not run)")
            self.outs.append(t)


FACTORIES = ("ones", "zeros", "full", "empty", "empty_strided", "arange", "range", "eye",
             "linspace", "logspace", "tril_indices", "triu_indices", "rand", "randn", "randint",
             "randperm")


def meta_factories(torch):
    """A mode under which forward's factories without a device (torch.ones(S, S) for a mask,
    torch.arange(S)) make meta tensors, as the model and its inputs are: on the CPU beside meta
    inputs they fail the export ('found two different devices meta, cpu').  Tensors made from
    data (torch.tensor(0.5)) stay on the CPU, so their values can be read."""
    table = {getattr(torch, n) for n in FACTORIES if hasattr(torch, n)}
    from_data = {torch.tensor, torch.as_tensor, torch.scalar_tensor}

    class Mode(torch.overrides.TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = dict(kwargs or {})
            if func in table and kwargs.get("device") is None:
                kwargs["device"] = "meta"
            elif func in from_data and str(kwargs.get("device")) == "meta" and args and \
                    isinstance(args[0], (int, float, bool)):
                # torch.tensor(1 / 0.01, device=x.device) with x on meta (Swin V2's logit
                # clamp): a number, kept on the CPU (a 0-d CPU tensor mixes with meta ones as a
                # scalar), so the translation reads its value as a literal
                kwargs["device"] = "cpu"
            return func(*args, **kwargs)
    return Mode()


class meta_autocast:
    """While torch.export traces, `torch.autocast(device_type="meta", ...)` acts as on the CPU:
    Hugging Face models turn autocast off around RoPE with the device type of their tensors
    (`with torch.autocast(device_type=x.device.type, enabled=False)`), and PyTorch has no
    autocast dtype for meta ('unsupported scalarType').  Turning autocast off changes nothing
    in a graph traced without it.  So a region that turns autocast off where it is off
    already is no region at all: entered, it would be a `wrap_with_autocast` higher-order op
    of the graph when the export runs under no_grad (translate_module)."""

    def __init__(self, torch):
        self.torch = torch
        self.cls = torch.amp.autocast_mode.autocast

    def __enter__(self):
        self.orig = (self.cls.__init__, self.cls.__enter__, self.cls.__exit__)
        orig_init, orig_enter, orig_exit = self.orig
        torch = self.torch

        def init(obj, device_type, *args, **kwargs):
            # "cuda" on a machine without CUDA: PyTorch would disable the region with a
            # warning, and a bf16 model would translate as f32 (slower kernels: a bound above
            # what the GPU runs).  As "cpu" the region stays on, and is refused where it is.
            cuda_off = device_type == "cuda" and not torch.cuda.is_available()
            orig_init(obj, "cpu" if device_type == "meta" or cuda_off else device_type,
                      *args, **kwargs)

        def enter(obj):
            obj._solar_noop = not obj._enabled and not torch.is_autocast_enabled(obj.device)
            return obj if obj._solar_noop else orig_enter(obj)

        def exit_(obj, *exc):
            return False if getattr(obj, "_solar_noop", False) else orig_exit(obj, *exc)
        self.cls.__init__, self.cls.__enter__, self.cls.__exit__ = init, enter, exit_
        return self

    def __exit__(self, *exc):
        self.cls.__init__, self.cls.__enter__, self.cls.__exit__ = self.orig
        return False


class rnn_shapes:
    """While torch.export traces, aten.lstm/gru/rnn_tanh/rnn_relu.input get their result shapes
    without a loop over the time steps.  torch.export keeps these operators whole and runs
    their decomposition (torch/_decomp/decompositions.py) on fake tensors only for the shapes:
    one cell per time step, layer and direction, which took 35 s of CPU for KernelBench
    level3/39 (512 steps, 6 layers).  And PyTorch 2.9's `one_layer_lstm` returns each layer's
    final (h, c) as `hx.squeeze(1)` of a [1, B, H] tensor, so h_n and c_n were traced as
    [L*D, 1, B, H] where eager returns [L*D, B, H], and every op after them was traced on that
    shape.  Here one layer's output is a fresh [T, B, H] tensor and its final states have the
    shapes of the initial ones (as eager's); the layers, directions, concatenation and the
    batch_first transpose are still the decomposition's own.  No values are computed: the
    exported graph holds the operator, which the translation and its validation read."""

    def __init__(self, torch):
        try:
            import torch._decomp.decompositions as dd
        except ImportError:
            dd = None
        names = ("one_layer_lstm", "one_layer_rnn")
        self.dd = dd if dd is not None and all(hasattr(dd, n) for n in names) else None

    def __enter__(self):
        if self.dd is None:
            return self
        self.orig = (self.dd.one_layer_lstm, self.dd.one_layer_rnn)

        def seq(inp, h):
            return inp.new_empty((inp.shape[0],) + tuple(h.shape))

        def one_layer_lstm(inp, hidden, params, has_biases, reverse=False):
            return seq(inp, hidden[0]), (hidden[0].clone(), hidden[1].clone())

        def one_layer_rnn(inp, hidden, params, has_biases, hidden_fn, reverse=False):
            return seq(inp, hidden), hidden.clone()
        self.dd.one_layer_lstm, self.dd.one_layer_rnn = one_layer_lstm, one_layer_rnn
        return self

    def __exit__(self, *exc):
        if self.dd is not None:
            self.dd.one_layer_lstm, self.dd.one_layer_rnn = self.orig
        return False


def translate_module(torch, path, mod, train=None):
    """The op graph of the model file's forward pass (train: of its training step, train.py)."""
    model, inputs = build(torch, mod, path)
    base = leaf_shapes(torch, model, inputs)
    sizes = Sizes()
    exprs = leaf_sizes(mod, base, lambda: leaf_shapes(torch, *build(torch, mod, path)), sizes)
    if train:
        from . import train as tr
        prog, used = tr.translate_step(torch, path, mod, model, inputs, train["loss"])

        def frontend(s, e):
            fe = Frontend(torch, path, mod, model, inputs, s, e)
            fe.train = (used, train["optimizer"])
            return fe
        return run_decomposing(torch, prog, frontend, sizes, exprs, rounds=1)
    # user inputs: tensors only
    try:
        with meta_factories(torch), rnn_shapes(torch), meta_autocast(torch):
            ep = torch.export.export(model, tuple(inputs))
            if any(n.target is getattr(torch.ops.higher_order, "wrap_with_set_grad_enabled", None)
                   for n in ep.graph.nodes):
                # a no_grad region inside forward (transformers' rotary embeddings) is a
                # higher-order op under an ambient grad mode, inlined when the ambient mode
                # is the region's own; grad mode changes no value of a forward pass
                with torch.no_grad():
                    ep = torch.export.export(model, tuple(inputs))
    except Exception as e:  # noqa: BLE001
        msg = first_line(e)
        if "data-dependent" in str(e) or "GuardOnDataDependent" in type(e).__name__:
            msg = "data-dependent control flow or shape: torch.export cannot trace it: " + msg
        raise TranslateError(f"torch.export failed: {msg}", model_line(e, path) or forward_line(model, path))
    return run_decomposing(torch, ep, lambda s, e: Frontend(torch, path, mod, model, inputs, s, e),
                           sizes, exprs)


# CompositeImplicit operators whose ATen implementation is one composition of other operators
# on every device (aten/src/ATen/native/Loss.cpp, Distance.cpp: no cuDNN or fused-kernel
# branch), so their decomposition's kernels are eager's kernels.  Not every CompositeImplicit
# operator is such: aten.lstm runs cuDNN's persistent kernel on a GPU, aten.lstm_cell a fused
# pointwise kernel, aten.scaled_dot_product_attention flash or memory-efficient attention;
# decomposing those would count more kernels than eager runs, and the unfused bound of more
# kernels can exceed eager's time.
DECOMPOSE = {"triplet_margin_loss", "pairwise_distance", "margin_ranking_loss",
             "cosine_embedding_loss", "poisson_nll_loss", "multilabel_soft_margin_loss",
             "diff"}   # diff: narrow, sub (and cat for prepend), aten/src/ATen/native/ReduceOps.cpp


def composite(torch, op):
    """Whether eager PyTorch runs op as its decomposition on every device: in DECOMPOSE and
    CompositeImplicitAutograd in this PyTorch."""
    if op.overloadpacket.__name__ not in DECOMPOSE:
        return False
    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(op.name(),
                                                                  "CompositeImplicitAutograd"))
    except Exception:  # noqa: BLE001 - an older PyTorch without the query: never decompose
        return False


UNSUPPORTED = re.compile(r"unsupported operator (aten\.[A-Za-z0-9_]+\.[A-Za-z0-9_]+)( \(used by [^()]*\))?$")


def run_decomposing(torch, ep, frontend, sizes, exprs, rounds=8):
    """The op graph of ep; an operator the translator has no handler for (the error names it
    and gives no other reason) that eager PyTorch runs as its decomposition on every device
    (composite(): nn.TripletMarginLoss's aten.triplet_margin_loss is pairwise_distance,
    clamp_min and mean) is decomposed in the graph (torch.export.default_decompositions), that
    operator alone, and the graph translated again, up to `rounds` times.  Any other operator
    is never decomposed: its decomposition's kernels need not be what eager runs, and the
    unfused bound of more kernels could exceed eager's time.  Each try starts from copies of the sizes
    (a failed run may have frozen some); when the decomposition does not get through either,
    the error is the first one, about the operator as the model wrote it."""
    import copy
    table = None
    first = None
    done = set()
    for _ in range(rounds):
        s, e = copy.deepcopy((sizes, exprs))
        fe = frontend(s, e)
        try:
            return fe.run(ep), fe
        except TranslateError as err:
            first = first or err
            m = UNSUPPORTED.search(err.message)
            if table is None:
                table = torch.export.default_decompositions()
            op = next((n.target for n in ep.graph.nodes if n.op == "call_function"
                       and m and str(n.target) == m.group(1)), None)
            if op is None or op in done or op not in table or not composite(torch, op):
                raise first
            done.add(op)
            try:
                with meta_autocast(torch):  # it traces again, autocast regions included
                    ep = ep.run_decompositions({op: table[op]})
            except Exception:  # noqa: BLE001 - PyTorch cannot decompose it here: as before
                raise first
    raise first
