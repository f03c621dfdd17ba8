"""`solar translate --hf CONFIG.json`: a Hugging Face config.json (no weights) -> a model file
-> AIR, by the same translation and validation as any model file (docs/translate.md, "Hugging
Face configs").

The config is read and checked here (every error names the JSON path, or the line and column
of a syntax error), and a model file is generated whose sizes are module constants:

    BATCH, SEQ (new tokens per sequence), CONTEXT (decode: the tokens already in the KV cache),
    VOCAB, KV_HEADS, GROUPS (query heads per KV head), HEAD_DIM, INTER,
    HEADS = KV_HEADS * GROUPS and HIDDEN = HEADS * HEAD_DIM (derived, where the config's hidden
    size is that product), LAYERS.

so that the AIR's params are named after them, `-D` applies, and the validation shrinks the
model through its config (validate.py: derived constants are recomputed, so the head
arithmetic holds at the small sizes) instead of running the full model in generated C.
LAYERS is the number of decoder layers: a count of kernels, no size of the AIR, so it is not
shrunk (every layer is validated).

Prefill: forward(ids[BATCH, SEQ]) -> the logits of the last position, as generate() asks for
them (logits_to_keep=1).  Decode: forward(ids[BATCH, SEQ], k0, v0, k1, v1, ...) where kI, vI
are layer I's KV cache of CONTEXT tokens, [BATCH, KV_HEADS, CONTEXT, HEAD_DIM], inputs; it
returns the logits and each layer's new cache entries, [BATCH, KV_HEADS, SEQ, HEAD_DIM], as
outputs.  A routed-expert config (mixtral) gets RoutedExperts in place of transformers' block.
"""
import json
import os

# model_type -> the transformers class it builds (each validated at small sizes by the test
# suite: tests/translate/hf/run.sh)
ARCHS = {
    "llama": "LlamaForCausalLM",
    "mistral": "MistralForCausalLM",
    "qwen2": "Qwen2ForCausalLM",
    "mixtral": "MixtralForCausalLM",
}

# architectures whose feed-forward routes tokens to experts: transformers' blocks loop over the
# experts a batch hits and gather each one's tokens (torch.where, nonzero), sizes that depend
# on the data and that torch.export cannot trace
ROUTED = {"qwen2_moe", "qwen3_moe", "deepseek_v2", "deepseek_v3", "dbrx", "jamba",
          "olmoe", "granitemoe", "phimoe"}

# transformers' MixtralSparseMoeBlock with the experts' weights stacked, [EXPERTS, ...], so that
# a token's experts can be read by its route: traced (on meta, or by torch.export) it is the
# routing as data (topk, then each token's two experts' SwiGLU through w1[chosen]: two experts'
# work a token, never all); run for real it is transformers' own algorithm (a loop over the
# experts the batch hits, torch.where, index_add_), so the validation compares the one with
# the other (tests/translate/hf/run.sh mixtral; tests/translate/test_hf_moe.py checks the loop
# against transformers' block).
ROUTED_EXPERTS = '''
class RoutedExperts(torch.nn.Module):
    def __init__(self, block):
        super().__init__()
        ex = block.experts
        self.top_k = getattr(block, "top_k", None) or block.gate.top_k
        self.gate = torch.nn.Parameter(block.gate.weight)
        if hasattr(ex, "gate_up_proj"):     # transformers 5: [E, 2 FF, D], gate rows first
            ff = ex.gate_up_proj.shape[1] // 2
            self.w1 = torch.nn.Parameter(ex.gate_up_proj[:, :ff])
            self.w3 = torch.nn.Parameter(ex.gate_up_proj[:, ff:])
            self.w2 = torch.nn.Parameter(ex.down_proj)
        else:                               # transformers 4: one module an expert
            self.w1 = torch.nn.Parameter(torch.stack([e.w1.weight for e in ex]))
            self.w3 = torch.nn.Parameter(torch.stack([e.w3.weight for e in ex]))
            self.w2 = torch.nn.Parameter(torch.stack([e.w2.weight for e in ex]))
        self.pair = int(transformers.__version__.split(".")[0]) < 5   # 4 returns the logits too

    def forward(self, hidden_states):
        b, s, d = hidden_states.shape
        x = hidden_states.view(-1, d)
        router_logits = torch.nn.functional.linear(x, self.gate)
        weights = torch.nn.functional.softmax(router_logits, dim=1, dtype=torch.float)
        weights, chosen = torch.topk(weights, self.top_k, dim=-1)
        weights = (weights / weights.sum(dim=-1, keepdim=True)).to(x.dtype)
        silu = torch.nn.functional.silu
        if torch.compiler.is_exporting() or x.is_meta:
            h = silu(torch.einsum("td,tkfd->tkf", x, self.w1[chosen])) * \\
                torch.einsum("td,tkfd->tkf", x, self.w3[chosen])
            y = torch.einsum("tkf,tkdf->tkd", h, self.w2[chosen]) * weights[..., None]
            out = y.sum(dim=1)
        else:
            out = torch.zeros_like(x)
            mask = torch.nn.functional.one_hot(chosen, num_classes=self.w1.shape[0]).permute(2, 1, 0)
            for e in range(self.w1.shape[0]):
                idx, tok = torch.where(mask[e])
                if tok.numel() == 0:
                    continue
                xe = x[tok]
                ye = torch.nn.functional.linear(
                    silu(torch.nn.functional.linear(xe, self.w1[e])) * torch.nn.functional.linear(xe, self.w3[e]),
                    self.w2[e]) * weights[tok, idx, None]
                out.index_add_(0, tok, ye.to(x.dtype))
        return (out.reshape(b, s, d), router_logits) if self.pair else out.reshape(b, s, d)

'''

DTYPES = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32"}


class ConfigError(Exception):
    def __init__(self, where, message):
        super().__init__(message)
        self.where = where
        self.message = message


def read_config(path):
    """The config as a dict; ConfigError(where, message) where `where` is 'LINE:COL' of a
    syntax error or a JSON path ($.num_key_value_heads)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ConfigError(None, f"cannot read: {e.strerror}")
    except UnicodeDecodeError:
        raise ConfigError(None, "is not UTF-8 text")
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"{e.lineno}:{e.colno}", f"not JSON: {e.msg}")
    except RecursionError:
        raise ConfigError(None, "not JSON: nested too deeply")
    if not isinstance(cfg, dict):
        raise ConfigError("$", "a config.json is an object ({...})")
    return cfg


def _int(cfg, key, lo=1, hi=1 << 31, default=None):
    if key not in cfg or cfg[key] is None:
        if default is not None:
            return default
        raise ConfigError(f"$.{key}", "is missing (a positive integer)")
    v = cfg[key]
    if type(v) is not int or not lo <= v <= hi:
        raise ConfigError(f"$.{key}", f"{json.dumps(v)} is not an integer from {lo} to {hi}")
    return v


def sizes_of(cfg, o):
    """The module constants of the generated file, checked; o: the options (batch, seq,
    decode, context, layers)."""
    mt = cfg.get("model_type")
    if not isinstance(mt, str):
        raise ConfigError("$.model_type", "is missing (a string such as \"llama\"): solar "
                          "translate needs it to know the architecture")
    if mt in ROUTED:
        raise ConfigError("$.model_type", f"'{mt}' routes tokens to experts, and its "
                          "transformers block (a loop over the experts hit, with torch.where "
                          "and index_add_) has data-dependent sizes that torch.export cannot "
                          "trace: not translated yet; examples/moe_layer.air is such a block "
                          "written in AIR by hand")
    if mt not in ARCHS:
        raise ConfigError("$.model_type", f"'{mt}' is not an architecture solar translate "
                          f"knows (it knows {', '.join(sorted(ARCHS))}); translate a model file "
                          "that builds it instead (docs/translate.md)")
    s = {"hidden": _int(cfg, "hidden_size"), "heads": _int(cfg, "num_attention_heads"),
         "layers": _int(cfg, "num_hidden_layers"), "inter": _int(cfg, "intermediate_size"),
         "vocab": _int(cfg, "vocab_size")}
    s["kv"] = _int(cfg, "num_key_value_heads", default=s["heads"])
    if mt == "mixtral":
        s["experts"] = _int(cfg, "num_local_experts")
        s["top_k"] = _int(cfg, "num_experts_per_tok", hi=min(s["experts"], 4))
    if s["heads"] % s["kv"]:
        raise ConfigError("$.num_key_value_heads", f"{s['kv']} does not divide "
                          f"num_attention_heads {s['heads']}")
    hd = cfg.get("head_dim")
    s["head_dim"] = _int(cfg, "head_dim") if hd is not None else s["hidden"] // s["heads"]
    if hd is None and s["hidden"] % s["heads"]:
        raise ConfigError("$.num_attention_heads", f"{s['heads']} does not divide hidden_size "
                          f"{s['hidden']} and the config has no head_dim")
    if s["head_dim"] % 2:
        raise ConfigError("$.head_dim" if hd is not None else "$.hidden_size",
                          f"the head dimension {s['head_dim']} is odd: rotary embeddings need "
                          "it even")
    dt = cfg.get("torch_dtype", cfg.get("dtype", "float32"))
    if dt not in DTYPES:
        raise ConfigError("$.torch_dtype", f"{json.dumps(dt)} is not one of "
                          f"{', '.join(DTYPES)}")
    s["dtype"] = DTYPES[dt]
    if o["layers"] is not None:
        if o["layers"] > s["layers"]:
            raise ConfigError("$.num_hidden_layers", f"--layers {o['layers']} is more than "
                              f"the config's {s['layers']} layers")
        s["layers"] = o["layers"]
    s["batch"] = o["batch"]
    s["seq"] = o["seq"] if o["seq"] is not None else (1 if o["decode"] else 2048)
    s["context"] = (o["context"] if o["context"] is not None else 2048) if o["decode"] else 0
    total = s["seq"] + s["context"]
    win = cfg.get("sliding_window")
    if win is not None and cfg.get("use_sliding_window", True) and mt in ("mistral", "qwen2", "mixtral"):
        if type(win) is not int or win < 1:
            raise ConfigError("$.sliding_window", f"{json.dumps(win)} is not a positive integer")
        if total > win:
            # the AIR would compute the masked scores outside the window; a kernel that skips
            # them does less work, so the bound could be above it
            raise ConfigError("$.sliding_window", f"{total} tokens (--seq {s['seq']}"
                              + (f" + --context {s['context']}" if o["decode"] else "")
                              + f") exceed the sliding window of {win}: attention over a "
                              "window is not translated yet; use at most that many")
    return s


def model_source(cfg, s, cfg_path, decode, train=False):
    """The text of the generated model file (train: the training step's, whose forward takes
    the labels and returns the loss)."""
    mt = cfg["model_type"]
    c = {k: v for k, v in cfg.items() if k not in ("architectures", "auto_map")}
    # pad_token_id only zeroes the embedding's gradient (forward is the same); at the small
    # validation vocabulary it could be out of range
    c["pad_token_id"] = None
    derived_hidden = s["hidden"] == s["heads"] * s["head_dim"]
    lines = [
        f'"""Generated by `solar translate --hf {os.path.basename(cfg_path)}`: a {ARCHS[mt]} '
        f'from its config, random weights,',
        ("one decode step of BATCH sequences: SEQ new tokens each against a KV cache of CONTEXT "
         "tokens." if decode else
         "a training step's forward: BATCH sequences of SEQ tokens, every position's logits in\n"
         "float32 and their cross entropy against the labels (the next tokens), as\n"
         "transformers' ForCausalLMLoss computes it on labels already shifted." if train else
         "the prefill of BATCH sequences of SEQ tokens, the last position's logits (as "
         "generate() asks)."),
        'The sizes are module constants so that -D and the validation\'s shrinking apply '
        '(translate/solar_translate/hf.py)."""',
        "import torch",
        "import transformers",
        "from transformers.cache_utils import DynamicLayer",
        "from transformers.integrations.sdpa_attention import sdpa_attention_forward",
        "from transformers.masking_utils import AttentionMaskInterface",
        "",
        "# Attention as transformers runs it on a GPU with no padding: no mask tensor, SDPA's",
        "# is_causal for a prefill (under a tracer transformers would build the causal mask as",
        "# data, and the AIR would count the masked half of the scores)",
        "transformers.AttentionInterface.register('solar_sdpa', sdpa_attention_forward)",
        "AttentionMaskInterface.register('solar_sdpa', lambda *args, **kwargs: None)",
        "",
        f"BATCH = {s['batch']}",
        f"SEQ = {s['seq']}",
    ]
    if decode:
        lines.append(f"CONTEXT = {s['context']}")
    lines += [
        f"LAYERS = {s['layers']}",
        f"VOCAB = {s['vocab']}",
        f"KV_HEADS = {s['kv']}",
        f"GROUPS = {s['heads'] // s['kv']}",
        "HEADS = KV_HEADS * GROUPS",
        f"HEAD_DIM = {s['head_dim']}",
        "HIDDEN = HEADS * HEAD_DIM" if derived_hidden else f"HIDDEN = {s['hidden']}",
        f"INTER = {s['inter']}",
    ]
    if "experts" in s:
        lines.append(f"EXPERTS = {s['experts']}")
    lines += [
        f"CONFIG = {c!r}",
        "",
        "",
        "def config():",
        "    c = dict(CONFIG, hidden_size=HIDDEN, num_attention_heads=HEADS, "
        "num_key_value_heads=KV_HEADS,",
        "             head_dim=HEAD_DIM, intermediate_size=INTER, num_hidden_layers=LAYERS, "
        "vocab_size=VOCAB,",
        "             max_position_embeddings=max(CONFIG.get('max_position_embeddings') or 0, "
        + ("SEQ + CONTEXT))" if decode else "SEQ))"),
        *(["    c['num_local_experts'] = EXPERTS"] if "experts" in s else []),
        "    c.pop('torch_dtype', None)",
        "    c.pop('dtype', None)",
        "    return transformers.AutoConfig.for_model(c.pop('model_type'), **c)",
        "",
        "",
        *(ROUTED_EXPERTS.splitlines() if "experts" in s else []),
        "class Model(torch.nn.Module):",
        "    def __init__(self):",
        "        super().__init__()",
        "        cfg = config()",
        "        cfg._attn_implementation = 'solar_sdpa'",
        "        prev = torch.get_default_dtype()",
        f"        torch.set_default_dtype(torch.{s['dtype']})   # built in its dtype: no float32 copy first",
        "        try:",
        # eval(): no dropout (the configs' attention_dropout is 0; a drawn mask could not be
        # validated); with train the weights require grad
        f"            self.lm = transformers.{ARCHS[mt]}(cfg).to(torch.{s['dtype']}).eval()"
        f".requires_grad_({bool(train)})",
        "        finally:",
        "            torch.set_default_dtype(prev)",
    ]
    if "experts" in s:
        lines += ["        for layer in self.lm.model.layers:",
                  "            for name, child in list(layer.named_children()):",
                  "                if type(child).__name__.endswith('SparseMoeBlock'):",
                  "                    setattr(layer, name, RoutedExperts(child))"]
    lines.append("")
    if decode:
        L = s["layers"]
        kv_args = ", ".join(f"k{i}, v{i}" for i in range(L))
        k_args = ", ".join(f"k{i}" for i in range(L))
        v_args = ", ".join(f"v{i}" for i in range(L))
        lines += [
            "    # the cache of each layer is an input of its own (kI, vI: [BATCH, KV_HEADS, CONTEXT,",
            "    # HEAD_DIM]), so that LAYERS is no size of the AIR (it is the number of layers)",
            f"    def forward(self, ids, {kv_args}):",
            "        # the cache holds the given tensors (DynamicCache.update would concatenate them",
            "        # to an empty tensor, a constant of the graph)",
            "        cache = transformers.DynamicCache()",
            f"        for k, v in zip([{k_args}], [{v_args}]):",
            "            layer = DynamicLayer()",
            "            layer.dtype, layer.device = k.dtype, k.device",
            "            layer.keys, layer.values, layer.is_initialized = k, v, True",
            "            cache.layers.append(layer)",
            "        out = self.lm(input_ids=ids, past_key_values=cache, use_cache=True, "
            "logits_to_keep=1)",
            "        # the new entries of the cache: what this step appends to each layer's",
            "        new = [t[:, :, CONTEXT:] for layer in cache.layers for t in (layer.keys, layer.values)]",
            "        return (out.logits, *new)",
            "",
            "",
            "def get_inputs():",
            "    kv = (BATCH, KV_HEADS, CONTEXT, HEAD_DIM)",
            "    return [torch.randint(0, VOCAB, (BATCH, SEQ))] + \\",
            f"        [torch.randn(kv, dtype=torch.{s['dtype']}) for _ in range(2 * {s['layers']})]",
        ]
    elif train:
        lines += [
            "    def forward(self, ids, labels):",
            "        logits = self.lm(input_ids=ids, use_cache=False).logits",
            "        return torch.nn.functional.cross_entropy(logits.float().reshape(-1, VOCAB),",
            "                                                 labels.reshape(-1))",
            "",
            "",
            "def get_inputs():",
            "    return [torch.randint(0, VOCAB, (BATCH, SEQ)), torch.randint(0, VOCAB, (BATCH, SEQ))]",
        ]
    else:
        lines += [
            "    def forward(self, ids):",
            "        return self.lm(input_ids=ids, use_cache=False, logits_to_keep=1).logits",
            "",
            "",
            "def get_inputs():",
            "    return [torch.randint(0, VOCAB, (BATCH, SEQ))]",
        ]
    lines += ["", "", "def get_init_inputs():", "    return []", ""]
    return "\n".join(lines)


def coinciding(s):
    """The first size of the model that --batch, --seq or --context equals, as
    ("--seq", "SEQ", "KV_HEADS", 8), or None.  Where two sizes are equal, a dimension made by
    the traced ops (not a leaf's) can be told from neither, so the translation writes it as the
    literal: -D and `solar shard` (which splits KV_HEADS under tp) then leave it as it is, a
    wrong program at any other size (tests/translate/hf/run.sh seq_kv)."""
    model = [("KV_HEADS", s["kv"]), ("HEADS", s["heads"]), ("HEAD_DIM", s["head_dim"]),
             ("GROUPS", s["heads"] // s["kv"]), ("HIDDEN", s["hidden"]),
             ("INTER", s["inter"]), ("VOCAB", s["vocab"])]
    mine = [("--batch", "BATCH", s["batch"]), ("--seq", "SEQ", s["seq"]),
            ("--context", "CONTEXT", s["context"])]
    for i, (opt, name, v) in enumerate(mine):
        if v is None or v < 2:
            continue
        for other, w in model + [(n, x) for _, n, x in mine[:i]]:
            if v == w:
                return opt, name, other, v
    return None


def generate(cfg_path, o, warn=None):
    """The source text of the model file for CONFIG.json; ConfigError on a bad config.
    warn(message): told when a size of the options equals one of the model's."""
    cfg = read_config(cfg_path)
    s = sizes_of(cfg, o)
    same = coinciding(s)
    if same and warn:
        opt, name, other, v = same
        warn(f"{opt} {v} equals {other} ({v}): a dimension of {v} that the traced ops make "
             f"cannot be told to be {name} or {other}, so it is written as the literal {v} and "
             f"-D or solar shard will not resize it; give {opt} a value no other size has")
    return model_source(cfg, s, cfg_path, o["decode"], bool(o.get("train")))
