"""`solar translate --train`: a model's training step (forward, loss, backward, optimizer).

The step is traced as eager PyTorch runs it (docs/translate.md, "Training steps"):

    out   = model(*inputs)                       # forward
    loss  = out.sum()  (--loss sum: the sum of every floating output, as a benchmark's
                         `out.sum().backward()`)  or  out itself (--loss output: a scalar)
    grads = torch.autograd.grad(loss, params)    # backward: the parameters that require grad
    optimizer step                               # --optimizer sgd | adamw (torch.optim's
                                                 # foreach implementation, its defaults)

make_fx traces the function on the meta device through the dispatcher, so the graph holds the
ATen operators eager PyTorch runs forward and backward (aten.addmm forward; aten.mm twice and
aten.sum for its backward; aten.native_layer_norm_backward, aten.threshold_backward ...), and
the frontend (torch_frontend.Frontend) reads it as it reads torch.export's graph.  Each node is
labelled with the user call it comes from: forward nodes by a TorchFunctionMode (the module
path from forward hooks, the line of the model file), backward nodes by pre- and post-hooks
on the autograd graph's nodes, which carry the label of the forward call that made them.  A
backward kernel is named after the forward call it differentiates
(`fc1_linear_backward_mm`) and sits in `[group = backward]`.

The optimizer's kernels are written here, not traced: torch.optim's foreach step reads the
step count on the host (`1 - beta1 ** step` is a Python float), so it does not trace on meta.
Each `torch._foreach_*` call of torch/optim/adam.py `_multi_tensor_adam` and
torch/optim/sgd.py `_multi_tensor_sgd` is one kernel over every parameter (one loop nest
each), in its order, with its scalars; the step count is 1 (the first step) and its bias
corrections are literals, as PyTorch computes them on the host.
"""
import operator
from typing import Optional
from functools import reduce

from .opgraph import Op, Tensor, TranslateError, Value

LOSSES = ("sum", "output")
OPTIMIZERS = ("none", "sgd", "adamw")
# torch.optim's defaults (PyTorch 2.9: torch/optim/adamw.py, sgd.py)
ADAMW = dict(lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=1e-2)
SGD = dict(lr=1e-3)


class Labels:
    """The labels of the graph's nodes while make_fx traces: (phase, module path, call name,
    line), given to the nodes created between two marks."""

    def __init__(self, torch, path, model):
        self.torch, self.path = torch, path
        self.model = model
        self.stack = []          # module paths being run
        self.marks = []          # (node count when the label starts, label)
        self.hooks = []
        self.current = None
        self.forward = False     # forward() is running (not a recomputation in the backward)

    def graph(self):
        from torch.fx.experimental.proxy_tensor import get_proxy_mode
        mode = get_proxy_mode()
        return mode.tracer.graph if mode is not None else None

    def mark(self, label):
        g = self.graph()
        if g is not None:
            self.marks.append((len(g.nodes), label))

    def line(self):
        from .source import stack_line
        return stack_line(self.path)

    def module_hooks(self):
        for name, m in self.model.named_modules():
            def pre(mod, args, name=name):
                self.stack.append(name)

            def post(mod, args, out):
                self.stack.pop()
            self.hooks.append(m.register_forward_pre_hook(pre))
            self.hooks.append(m.register_forward_hook(post))

    def remove(self):
        for h in self.hooks:
            h.remove()
        self.hooks = []

    def function_mode(self, phase):
        torch = self.torch
        labels = self

        class Mode(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                name = getattr(func, "__name__", "op").strip("_") or "op"
                path = labels.stack[-1] if labels.stack else ""
                label = (phase, path, name, labels.line())
                labels.mark(label)
                r = func(*args, **(kwargs or {}))
                labels.mark(labels.current)
                for x in (r if isinstance(r, (list, tuple)) else [r]):
                    gf = getattr(x, "grad_fn", None)
                    if gf is not None and "solar" not in gf.metadata:
                        gf.metadata["solar"] = label
                return r
        return Mode()

    def backward_hooks(self, loss):
        """Pre- and post-hooks on every node of loss's autograd graph: the nodes traced while
        one runs take the label of the forward call that made it."""
        seen = set()
        todo = [loss.grad_fn]
        while todo:
            n = todo.pop()
            if n is None or n in seen:
                continue
            seen.add(n)
            lab = n.metadata.get("solar")
            lab = ("backward",) + tuple(lab[1:]) if lab else ("backward", "", "grad", None)

            def pre(grad_outputs, lab=lab):
                self.mark(lab)

            def post(grad_inputs, grad_outputs):
                self.mark(("backward", "", "grad", None))
            self.hooks.append(n.register_prehook(pre))
            self.hooks.append(n.register_hook(post))
            todo.extend(f for f, _ in n.next_functions)

    def apply(self, gm):
        """Writes the labels into the nodes' meta as torch.export writes its own (stack_trace,
        nn_module_stack), with the phase and the forward call."""
        nodes = list(gm.graph.nodes)
        marks = sorted(self.marks, key=lambda m: m[0])
        k, label = 0, None
        for i, n in enumerate(nodes):
            while k < len(marks) and marks[k][0] <= i:
                label = marks[k][1]
                k += 1
            if n.op != "call_function" or label is None:
                continue
            phase, path, call, line = label
            n.meta["solar_phase"] = phase
            n.meta["solar_call"] = call
            if line:
                n.meta["stack_trace"] = f'File "{self.path}", line {line}, in forward'
            n.meta["nn_module_stack"] = {"m": (path, "")} if path else {}


def loss_of(torch, out, mode, where, cotangents=None):
    """The loss: `sum`, `output`, or (the validation's, "cotangent") the sum of each floating
    output times a drawn tensor of its shape, so that the backward is checked against a
    random cotangent: the gradient of a plain sum can vanish by symmetry (an output that
    ends in a batch norm sums to a constant), and then only rounding is compared."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    tensors = [o for o in outs if isinstance(o, torch.Tensor)]
    if mode == "cotangent":
        floats = [o for o in tensors if o.is_floating_point()]
        return reduce(operator.add, [(o * c).sum() for o, c in zip(floats, cotangents)])
    if mode == "output":
        first = outs[0] if outs else None
        if not isinstance(first, torch.Tensor) or first.dim() != 0 or not first.is_floating_point():
            what = (f"a tensor of shape {list(first.shape)}" if isinstance(first, torch.Tensor)
                    and first.dim() else f"a {first.dtype} scalar" if isinstance(first, torch.Tensor)
                    else type(first).__name__)
            raise TranslateError(f"--loss output: forward() must return a floating scalar loss "
                                 f"(or a tuple that starts with one); it returns {what}; "
                                 f"--loss sum differentiates the sum of its outputs", where)
        return first
    floats = [o for o in tensors if o.is_floating_point()]
    if not floats:
        raise TranslateError("--train: forward() returns no floating-point tensor, so there is "
                             "no loss to differentiate (--loss sum sums the floating outputs)", where)
    return reduce(operator.add, [o.sum() for o in floats])


def trace(torch, path, model, inputs):
    """make_fx graph of the step's forward, loss and backward on meta, labelled, and
    (param names, trainable names, buffer names, the number of tensor inputs)."""
    from torch.fx.experimental.proxy_tensor import make_fx
    from .torch_frontend import forward_line
    where = forward_line(model, path)
    pnames = [n for n, _ in model.named_parameters()]
    trainable = [n for n, p in model.named_parameters() if p.requires_grad]
    bnames = [n for n, _ in model.named_buffers()]
    xs = [x for x in inputs]
    labels = Labels(torch, path, model)
    state = {}

    def step(pvals, bvals, xvals):
        from torch.nn.utils.stateless import _reparametrize_module
        pd = dict(zip(pnames, pvals))
        bd = dict(zip(bnames, bvals))
        cot = None
        if state["loss"] == "cotangent":
            xvals, cot = xvals[:state["nx"]], xvals[state["nx"]:]
        # the graph's parameters stand in for the module's through the backward too: a
        # checkpointed block (torch.utils.checkpoint) runs its forward again in the backward
        with _reparametrize_module(model, {**pd, **bd}):
            labels.module_hooks()
            try:
                with labels.function_mode("forward"):
                    labels.forward = True
                    out = model(*xvals)
                    labels.forward = False
                    labels.stack = ["loss"]
                    loss = loss_of(torch, out, state["loss"], where, cot)
                    labels.stack = []
            finally:
                labels.remove()
            labels.mark(("backward", "loss", "seed", None))   # autograd.grad's ones_like
            want = [pd[n] for n in trainable]
            if not want:
                raise TranslateError("--train: no parameter of the model requires grad, so the "
                                     "step has no backward", where)
            if not loss.requires_grad:
                raise TranslateError("--train: the loss does not depend on any parameter that "
                                     "requires grad", where)
            labels.backward_hooks(loss)
            labels.module_hooks()      # a recomputed forward's module paths
            try:
                grads = torch.autograd.grad(loss, want, allow_unused=True)
            finally:
                labels.remove()
        state["used"] = [n for n, g in zip(trainable, grads) if g is not None]
        return [loss] + [g for g in grads if g is not None]
    return step, labels, state, (pnames, trainable, bnames, xs), make_fx


_SDPA_OPS = []


def sdpa_ops(torch):
    """The two custom operators a traced SDPA becomes (registered once): solar_train::sdpa
    (q, k, v, causal, scale) -> (out, lse) and solar_train::sdpa_backward (dout, q, k, v, out, lse,
    causal, scale) -> (dq, dk, dv), flash attention's forward and backward as PyTorch runs them on
    a GPU (the forward saves each row's logsumexp, the backward recomputes the scores from it).
    Only their shapes exist (they are traced on meta, never run)."""
    if _SDPA_OPS:
        return _SDPA_OPS[0]
    lib = torch.library

    @lib.custom_op("solar_train::sdpa", mutates_args=())
    def sdpa_(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: Optional[torch.Tensor],
              causal: bool, scale: float) -> tuple[torch.Tensor, torch.Tensor]:
        raise RuntimeError("solar_train::sdpa is traced, never run")

    @sdpa_.register_fake
    def _(q, k, v, mask, causal, scale):
        return (q.new_empty(q.shape[:-1] + v.shape[-1:]),
                q.new_empty(q.shape[:-1], dtype=torch.float32))

    @lib.custom_op("solar_train::sdpa_backward", mutates_args=())
    def sdpa_backward(dout: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      out: torch.Tensor, lse: torch.Tensor, mask: Optional[torch.Tensor],
                      causal: bool,
                      scale: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        raise RuntimeError("solar_train::sdpa_backward is traced, never run")

    @sdpa_backward.register_fake
    def _(dout, q, k, v, out, lse, mask, causal, scale):
        return q.new_empty(q.shape), k.new_empty(k.shape), v.new_empty(v.shape)

    class SDPA(torch.autograd.Function):
        @staticmethod
        def forward(ctx, q, k, v, mask, causal, scale):
            out, lse = torch.ops.solar_train.sdpa(q, k, v, mask, causal, scale)
            ctx.save_for_backward(q, k, v, out, lse, mask)
            ctx.causal, ctx.scale = causal, scale
            return out

        @staticmethod
        def backward(ctx, dout):
            q, k, v, out, lse, mask = ctx.saved_tensors
            dq, dk, dv = torch.ops.solar_train.sdpa_backward(dout, q, k, v, out, lse, mask,
                                                             ctx.causal, ctx.scale)
            return dq, dk, dv, None, None, None
    _SDPA_OPS.append(SDPA)
    return SDPA


class fused_sdpa:
    """While the step is traced, F.scaled_dot_product_attention (a user's call, or
    nn.MultiheadAttention's inside F.multi_head_attention_forward) is flash attention's two
    kernels (sdpa_ops): on meta PyTorch would run its math decomposition, which writes the
    scores as a tensor forward and backward, where a GPU runs flash or memory-efficient kernels
    that never do; the unfused bound of the math kernels could be above the GPU's time.  An
    attention mask (boolean or additive, not requiring grad) is an input of both kernels, as
    the memory-efficient kernels read it.  A call the fused kernels do not cover (dropout, a
    mask that requires grad, key and value shapes that differ from the query's but in their
    length, or with enable_gqa in their heads by a factor) is refused at its line."""

    def __init__(self, torch, path, labels=None, amp=None):
        self.torch, self.path, self.labels, self.amp = torch, path, labels, amp

    def __enter__(self):
        from .source import stack_line
        torch = self.torch
        F = torch.nn.functional
        self.orig = F.scaled_dot_product_attention
        path = self.path
        SDPA = sdpa_ops(torch)

        def where():
            return stack_line(path)

        def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                 enable_gqa=False):
            heads_ok = (q.shape[:-2] == k.shape[:-2] or
                        enable_gqa and q.dim() >= 3 and q.shape[:-3] == k.shape[:-3] and
                        q.shape[-3] % k.shape[-3] == 0)
            why = ("an attention mask that requires grad" if attn_mask is not None and
                   attn_mask.requires_grad else
                   "dropout" if dropout_p else
                   "keys or values of other leading sizes than the query's"
                   if not heads_ok or k.shape[:-1] != v.shape[:-1] else None)
            if why:
                raise TranslateError(f"scaled_dot_product_attention with {why} is not translated "
                                     "with --train yet (its fused kernels are translated without "
                                     "dropout, with a mask that does not require grad)",
                                     where())
            s = scale if scale is not None else q.shape[-1] ** -0.5
            low = self.amp.active() if self.amp is not None else None
            if low is not None:      # in CUDA autocast's lower-precision list
                q, k, v = self.amp.cast((q, k, v), low, True)
            # the kernels are named after the module that calls (a function of transformers'
            # calls it from the attention module, which no torch function records)
            lab = self.labels
            label = ("forward", lab.stack[-1] if lab and lab.stack else "", "sdpa", where())
            if lab and lab.forward:
                lab.mark(label)
            out = SDPA.apply(q, k, v, attn_mask, bool(is_causal), float(s))
            if lab and lab.forward:
                lab.mark(lab.current)
            if out.grad_fn is not None:     # its backward kernel: sdpa_backward
                out.grad_fn.metadata.setdefault("solar", label)
            return out
        F.scaled_dot_product_attention = sdpa
        return self

    def __exit__(self, *exc):
        self.torch.nn.functional.scaled_dot_product_attention = self.orig
        return False


# CUDA autocast's policy (aten/src/ATen/autocast_mode.cpp, the CUDA lists), by the name of the
# function or Tensor method the model calls.  LOWER: the floating arguments are cast to the
# region's dtype (the matmuls, convolutions and attention: tensor-core work).  FP32: cast to
# float32 (norms, exp/log and the losses), a cast kernel as autocast's cached_cast launches;
# FP32_OPT below: called with dtype=float32.
# Any other function runs in its arguments' dtypes, with PyTorch's type promotion, as under
# autocast.  Soundness (docs/translate.md, "Mixed precision"): a function that CUDA runs in
# the lower dtype and this table missed would be traced in float32, above the GPU's time, so
# LOWER holds every lower-precision function of the CUDA list; a function missed from FP32 is
# traced in the lower dtype, fewer bytes than the GPU moves: looser, never above.
AUTOCAST_LOWER = frozenset((
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "conv_tbc", "convolution", "_convolution", "prelu", "addmm", "addmv",
    "addr", "matmul", "__matmul__", "__rmatmul__", "einsum", "mm", "mv", "vecdot",
    "addbmm", "baddbmm", "bmm", "chain_matmul", "multi_dot", "lstm_cell", "gru_cell",
    "rnn_tanh_cell", "rnn_relu_cell", "scaled_dot_product_attention"))
AUTOCAST_FP32 = frozenset((
    "acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
    "reciprocal", "rsqrt", "sinh", "tan", "pow", "__pow__", "__rpow__", "softplus",
    "layer_norm", "group_norm", "norm", "cosine_similarity", "poisson_nll_loss",
    "cosine_embedding_loss", "nll_loss", "hinge_embedding_loss", "kl_div", "l1_loss",
    "smooth_l1_loss", "huber_loss", "mse_loss", "margin_ranking_loss",
    "multilabel_margin_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
    "binary_cross_entropy_with_logits", "dist", "pdist", "cdist", "renorm", "logsumexp",
    "cross_entropy", "interpolate", "upsample"))
# CUDA's fp32_set_opt_dtype: called with dtype=float32 on a lower-precision input, not after a
# cast (a reduction reads bf16 and accumulates in f32 in one kernel: a cast kernel before it
# would be traffic the GPU does not move, a bound above its time)
AUTOCAST_FP32_OPT = frozenset(("softmax", "log_softmax", "cumprod", "cumsum", "prod", "sum"))


class autocast_policy:
    """While a training step is traced (on meta tensors, which PyTorch's autocast does not
    touch), `torch.autocast("cuda", dtype)` regions apply CUDA autocast's casts as a torch
    function mode: above autograd, as autocast is, so the casts are in the graph and their
    backward is too (a bf16 matmul's gradients flow back through the cast to the float32
    weight).  A region's state is a stack (nested regions, enabled=False inside); the casts of a
    parameter are made once a region, as autocast caches them.  A region for another device
    (autocast on the CPU is another policy) and torch.utils.checkpoint inside a region (its
    recomputation would run without the casts) are refused at their line."""

    def __init__(self, torch, path):
        self.torch, self.path = torch, path
        self.stack = []          # (enabled, dtype) of the regions entered
        self.cache = {}          # id(parameter), dtype -> its cast, for the outermost region

    def active(self):
        return self.stack[-1][1] if self.stack and self.stack[-1][0] else None

    def refuse(self, what):
        from .source import stack_line
        raise TranslateError(what, stack_line(self.path))

    def __enter__(self):
        torch, pol = self.torch, self
        cls = torch.amp.autocast_mode.autocast
        self.orig = (cls.__init__, cls.__enter__, cls.__exit__)

        def init(obj, device_type, dtype=None, enabled=True, cache_enabled=None):
            obj.device, obj._enabled = device_type, bool(enabled)
            obj.fast_dtype = dtype if dtype is not None else (
                torch.float16 if device_type == "cuda" else torch.bfloat16)
            if obj._enabled and device_type not in ("cuda", "meta"):
                pol.refuse(f"--train: an autocast region for '{device_type}' is not translated: "
                           "the bound is a GPU's, and CUDA autocast's casts are what is traced "
                           "(torch.autocast(\"cuda\", dtype=...))")

        def enter(obj):
            pol.stack.append((obj._enabled, obj.fast_dtype))
            return obj

        def exit_(obj, *exc):
            pol.stack.pop()
            if not pol.stack:
                pol.cache.clear()
            return False
        cls.__init__, cls.__enter__, cls.__exit__ = init, enter, exit_
        # torch.utils.checkpoint records the autocast state at the call (for its
        # recomputation) through this module function, whichever name the model imported
        import torch.utils.checkpoint as ckpt
        self.ckpt = getattr(ckpt, "_get_autocast_kwargs", None)

        def autocast_kwargs(*a, **kw):
            if pol.active() is not None:
                pol.refuse("--train: torch.utils.checkpoint inside an autocast region is not "
                           "translated yet (its recomputation would run without the casts)")
            return pol.ckpt(*a, **kw)
        if self.ckpt is not None:
            ckpt._get_autocast_kwargs = autocast_kwargs
        self.mode = self.function_mode()
        self.mode.__enter__()
        return self

    def cast(self, x, dtype, lower):
        """x cast as autocast casts an argument: floating tensors other than float64 (to the
        lower dtype), or of a lower precision (to float32); lists and tuples elementwise."""
        torch = self.torch
        if isinstance(x, (list, tuple)):
            return type(x)(self.cast(e, dtype, lower) for e in x)
        if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.dtype == dtype:
            return x
        if lower and x.dtype == torch.float64 or not lower and x.dtype != torch.float16 \
                and x.dtype != torch.bfloat16:
            return x
        key = (id(x), dtype)
        if x.requires_grad and x.grad_fn is None:      # a parameter: cast once a region
            if key not in self.cache:
                self.cache[key] = (x, x.to(dtype))
            return self.cache[key][1]
        return x.to(dtype)

    def function_mode(self):
        torch, pol = self.torch, self

        class Mode(torch.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                kwargs = kwargs or {}
                low = pol.active()
                name = getattr(func, "__name__", "")
                if low is not None and name in AUTOCAST_LOWER:
                    args, kwargs = pol.cast(args, low, True), {k: pol.cast(v, low, True)
                                                               for k, v in kwargs.items()}
                elif low is not None and name in AUTOCAST_FP32_OPT and kwargs.get("dtype") is None:
                    x = args[0] if args else None
                    if isinstance(x, torch.Tensor) and x.dtype in (torch.float16, torch.bfloat16):
                        kwargs = dict(kwargs, dtype=torch.float32)
                elif low is not None and name in AUTOCAST_FP32 and kwargs.get("dtype") is None:
                    f32 = torch.float32
                    args, kwargs = pol.cast(args, f32, False), {k: pol.cast(v, f32, False)
                                                                for k, v in kwargs.items()}
                return func(*args, **kwargs)
        return Mode()

    def __exit__(self, *exc):
        self.mode.__exit__(*exc)
        cls = self.torch.amp.autocast_mode.autocast
        cls.__init__, cls.__enter__, cls.__exit__ = self.orig
        if self.ckpt is not None:
            import torch.utils.checkpoint as ckpt
            ckpt._get_autocast_kwargs = self.ckpt
        return False


class Spec:
    """What torch_frontend.Frontend.run reads of an input or output spec."""

    class Kind:
        def __init__(self, name):
            self.name = name

    class Arg:
        def __init__(self, name):
            self.name = name

    def __init__(self, name, kind, target=None):
        self.arg, self.kind, self.target = Spec.Arg(name), Spec.Kind(kind), target


class Program:
    """The make_fx graph dressed as the ExportedProgram Frontend.run reads."""

    def __init__(self, gm, input_specs, n_out):
        self.graph = gm.graph
        # make_fx keeps a tensor made in forward() as an attribute of the module (get_attr)
        self.constants = {n.target: getattr(gm, n.target) for n in gm.graph.nodes
                          if n.op == "get_attr" and hasattr(gm, n.target)}

        class Sig:
            pass
        self.graph_signature = Sig()
        self.graph_signature.input_specs = input_specs
        self.graph_signature.output_specs = [Spec(f"o{i}", "USER_OUTPUT") for i in range(n_out)]


def translate_step(torch, path, mod, model, inputs, loss="sum"):
    """The labelled graph of the step as a Program, and the names of the parameters that get
    a gradient (in the order of the outputs after the loss)."""
    from .source import first_line, model_line
    from .torch_frontend import forward_line, meta_factories
    rnn = next((n for n, m in model.named_modules() if isinstance(m, torch.nn.RNNBase)), None)
    if rnn is not None:
        # cuDNN runs a recurrent layer's forward and backward as persistent kernels that keep
        # the weights on chip; the tracer unrolls it per time step, whose kernels re-read them
        raise TranslateError(f"--train: the recurrent layer '{rnn}' ({type(model.get_submodule(rnn)).__name__}) "
                             "is not translated with --train yet: its backward runs in cuDNN's "
                             "kernels, and the tracer would unroll it per time step",
                             forward_line(model, path))
    step, labels, state, (pnames, trainable, bnames, xs), make_fx = trace(torch, path, model, inputs)
    state["loss"] = loss
    params = [p.detach().requires_grad_(p.requires_grad) for p in model.parameters()]
    bufs = [b.detach() for b in model.buffers()]
    xs = [x.detach() if isinstance(x, torch.Tensor) else x for x in xs]
    state["nx"] = len(xs)
    if loss == "cotangent":     # one drawn tensor per floating output, inputs after forward's
        with torch.no_grad(), meta_factories(torch), autocast_policy(torch, path):
            out = model(*xs)
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        xs = xs + [torch.empty(o.shape, dtype=o.dtype, device="meta") for o in outs
                   if isinstance(o, torch.Tensor) and o.is_floating_point()]
    try:
        with meta_factories(torch), autocast_policy(torch, path) as amp, \
                fused_sdpa(torch, path, labels, amp):
            gm = make_fx(step)(params, bufs, xs)
    except TranslateError:
        raise
    except Exception as e:  # noqa: BLE001
        raise TranslateError(f"tracing the training step failed: {first_line(e)}",
                             model_line(e, path) or forward_line(model, path))
    labels.apply(gm)
    import inspect
    try:
        argnames = [p for p in inspect.signature(model.forward).parameters]
    except (TypeError, ValueError):
        argnames = []
    ph = [n for n in gm.graph.nodes if n.op == "placeholder"]
    specs = []
    for i, n in enumerate(ph):
        if i < len(pnames):
            specs.append(Spec(n.name, "PARAMETER", pnames[i]))
        elif i < len(pnames) + len(bnames):
            specs.append(Spec(n.name, "BUFFER", bnames[i - len(pnames)]))
        else:
            specs.append(Spec(n.name, "USER_INPUT"))
            k = i - len(pnames) - len(bnames)
            if k < len(argnames) and k < state["nx"]:
                n.meta["solar_name"] = argnames[k]      # forward()'s own name of the input
            elif k >= state["nx"]:
                n.meta["solar_name"] = f"cotangent{k - state['nx']}"
    used = state["used"]
    return Program(gm, specs, 1 + len(used)), used


# ------------------------------------------------------------------------------------------
# the optimizer's kernels


def optimizer_ops(fe, params, grads, kind):
    """Appends the kernels of torch.optim's foreach step (kind 'sgd' or 'adamw') to fe's
    graph: params (Tensors, role in) become inout, each gets its state tensors (inout, the
    parameter's dtype, as torch.optim keeps them).  grads: the gradient Values, in order."""
    g = fe.g
    for p in params:
        p.role = "inout"
    if kind == "sgd":
        # _multi_tensor_sgd, momentum 0: torch._foreach_add_(params, grads, alpha=-lr)
        lr = SGD["lr"]
        foreach(fe, "sgd_add", [(p, [p, gr]) for p, gr in zip(params, grads)],
                lambda v: f"{v[0]} - {_f(lr)} * {v[1]}")
        return []
    a = ADAMW
    lr, b1, b2, eps, wd = a["lr"], a["beta1"], a["beta2"], a["eps"], a["weight_decay"]
    step = 1
    bc1 = 1 - b1 ** step
    bc2 = 1 - b2 ** step
    step_size = -(lr / bc1)
    bc2_sqrt = bc2 ** 0.5
    m = [state(fe, p, "exp_avg") for p in params]
    v = [state(fe, p, "exp_avg_sq") for p in params]
    foreach(fe, "adamw_mul_params", [(p, [p]) for p in params],
            lambda x: f"{x[0]} * {_f(1 - lr * wd)}")
    foreach(fe, "adamw_lerp_exp_avg", [(mi, [mi, gr]) for mi, gr in zip(m, grads)],
            lambda x: f"{x[0]} + {_f(1 - b1)} * ({x[1]} - {x[0]})")
    foreach(fe, "adamw_mul_exp_avg_sq", [(vi, [vi]) for vi in v],
            lambda x: f"{x[0]} * {_f(b2)}")
    foreach(fe, "adamw_addcmul_exp_avg_sq", [(vi, [vi, gr]) for vi, gr in zip(v, grads)],
            lambda x: f"{x[0]} + {_f(1 - b2)} * {x[1]} * {x[1]}")
    den = [tmp_like(fe, p, "denom") for p in params]
    foreach(fe, "adamw_sqrt", [(d, [vi]) for d, vi in zip(den, v)], lambda x: f"sqrt({x[0]})")
    foreach(fe, "adamw_div_denom", [(d, [d]) for d in den], lambda x: f"{x[0]} / {_f(bc2_sqrt)}")
    foreach(fe, "adamw_add_eps", [(d, [d]) for d in den], lambda x: f"{x[0]} + {_f(eps)}")
    foreach(fe, "adamw_addcdiv_params", [(p, [p, mi, d]) for p, mi, d in zip(params, m, den)],
            lambda x: f"{x[0]} + {_f(step_size)} * {x[1]} / {x[2]}")
    return m + v


def _f(x):
    from .emit_air import flit
    return flit(x)


def state(fe, p, what):
    t = Tensor(fe.tname(f"{p.name}_{what}"), p.shape, p.dtype, "inout")
    t.comment = f"torch.optim.AdamW's {what} of {p.name}"
    fe.g.add_tensor(t)
    return t


def tmp_like(fe, p, what):
    t = Tensor(fe.tname(f"{p.name}_{what}"), p.shape, p.dtype, "tmp")
    fe.g.add_tensor(t)
    return t


def foreach(fe, name, pairs, f):
    """One torch._foreach_* kernel: for each (target, operands), target = f(operands) over the
    target's elements; the statements share a kernel (attrs 'shared_kernel': its name)."""
    kname = fe.kname("optimizer", name)
    for k, (dst, srcs) in enumerate(pairs):
        vals = [s if isinstance(s, Value) else Value(s.shape, s.dtype, tensor=s) for s in srcs]
        out = dst if isinstance(dst, Value) else Value(dst.shape, dst.dtype, tensor=dst)
        fe.g.ops.append(Op("pointwise", kname, vals, out,
                           {"f": lambda v, i, f=f: f(v), "shared_kernel": kname, "group": "optimizer"},
                           "optimizer", None, aten=f"torch._foreach ({name}), torch.optim"))
