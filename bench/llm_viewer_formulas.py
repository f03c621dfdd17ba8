"""What LLM-Viewer's per-layer formulas give for a config, for docs/llm.md's comparison.

    python3 bench/llm_viewer_formulas.py CONFIG.json DEVICE.json prefill|decode BATCH TOKENS

LLM-Viewer (Yuan et al., "LLM Inference Unveiled: Survey and Roofline Model Insights",
arXiv:2402.16363; github.com/hahnyuan/LLM-Viewer, model_analyzer.py) writes each operator of a
Llama-style decoder layer by hand: the OPs (2 per multiply-add) and the bytes it loads and
stores, times each with a roofline, max(OPs / peak, bytes / bandwidth), and adds the times of
the operators and of the layers.  This is an independent re-statement of those formulas
(16-bit weights, activations and KV cache, no FlashAttention, one token per decode step), with
the device descriptor's datasheet peaks: the dense 16-bit tensor peak at NVIDIA's quoted clock
and the DRAM bandwidth.  Prefill: TOKENS tokens a sequence; decode: one token a sequence
against TOKENS cached ones.  Prints the time (ms), the OPs and the bytes.
"""
import json
import sys


def layer_ops(c, stage, B, T):
    """[(name, OPs, bytes)] of one layer, LLM-Viewer's operators."""
    h, H = c["hidden_size"], c["num_attention_heads"]
    kv = c.get("num_key_value_heads", H)
    hd = c.get("head_dim") or h // H
    inter = c["intermediate_size"]
    a = w = 2   # bytes
    n = B if stage == "decode" else B * T          # tokens through the linear layers
    linears = {"q_proj": (h, H * hd), "k_proj": (h, kv * hd), "v_proj": (h, kv * hd),
               "out_proj": (H * hd, h), "gate_proj": (h, inter), "up_proj": (h, inter),
               "down_proj": (inter, h)}
    ops = []
    for name, (ic, oc) in linears.items():
        ops.append((name, 2 * ic * oc * n, ic * oc * w + ic * n * a + oc * n * a))
    if stage == "decode":
        qk = 2 * T * hd * H * B
        ops.append(("qk_matmul", qk, hd * B * H * a + T * B * H * a + T * hd * B * kv * a))
        ops.append(("sv_matmul", qk, T * B * H * a + hd * B * H * a + T * hd * B * kv * a))
        ops.append(("softmax", 5 * B * H * T, 2 * B * H * T * a))
    else:
        qk = 2 * T * T * hd * H * B
        ops.append(("qk_matmul", qk, T * T * B * H * a + 2 * T * hd * B * kv * a))
        ops.append(("sv_matmul", qk, T * T * B * H * a + T * hd * B * H * a + T * hd * B * kv * a))
        ops.append(("softmax", 5 * B * H * T * T, 2 * B * H * T * T * a))
    for name in ("attn_norm", "mlp_norm"):
        ops.append((name, 7 * n * h, 2 * n * h * a))
    for name in ("attn_add", "mlp_add"):
        ops.append((name, n * h, 2 * n * h * a))
    ops.append(("mlp_act", 2 * n * inter, 3 * n * inter * a))
    return ops


def main(argv):
    cfg, dev, stage, B, T = json.load(open(argv[0])), json.load(open(argv[1])), argv[2], int(argv[3]), int(argv[4])
    peak = dev["peak"]["tensor"]["bf16"]["value"]
    bw = next(m for m in dev["memory"] if m["level"] == "dram")["bandwidth_bytes_per_s"]["value"]
    t = o = b = 0.0
    for _, ops, byts in layer_ops(cfg, stage, B, T):
        t += max(ops / peak, byts / bw)
        o += ops
        b += byts
    L = cfg["num_hidden_layers"]
    t, o, b = t * L, o * L, b * L
    # the LM head on the last position of each sequence
    head_o, head_b = 2 * cfg["hidden_size"] * cfg["vocab_size"] * B, 2 * cfg["hidden_size"] * cfg["vocab_size"]
    t += max(head_o / peak, head_b / bw)
    print(f"{t * 1e3:.3f} ms {(o + head_o) / 1e12:.3f} TOPs {(b + head_b) / 1e9:.2f} GB")


if __name__ == "__main__":
    main(sys.argv[1:])
