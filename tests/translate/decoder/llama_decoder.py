"""A LLaMA-style decoder (Llama-2/3 7-8B shapes), bf16, prefill of one sequence: 32 layers of
RMSNorm -> q/k/v projections (grouped-query attention, 8 KV heads) -> rotary embedding ->
causal scaled_dot_product_attention -> output projection -> residual -> RMSNorm -> SwiGLU MLP
-> residual; then the final norm and the LM head.  The input is the token embeddings (an
embedding lookup indexes with data, which AIR v1 cannot express).  Written for
`solar translate` (docs/translate.md); about 7 B parameters, built on the meta device.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

batch_size = 1
seq_len = 2048
dim = 4096
n_heads = 32
n_kv_heads = 8
ffn_dim = 14336
n_layers = 32
vocab_size = 32000
DTYPE = torch.bfloat16


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class Attention(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads):
        super().__init__()
        self.n_heads, self.n_kv_heads, self.head_dim = n_heads, n_kv_heads, dim // n_heads
        self.q_proj = nn.Linear(dim, n_heads * self.head_dim, bias=False, dtype=DTYPE)
        self.k_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False, dtype=DTYPE)
        self.v_proj = nn.Linear(dim, n_kv_heads * self.head_dim, bias=False, dtype=DTYPE)
        self.o_proj = nn.Linear(n_heads * self.head_dim, dim, bias=False, dtype=DTYPE)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.n_kv_heads, self.head_dim).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o_proj(o.transpose(1, 2).reshape(b, s, -1))


class MLP(nn.Module):
    def __init__(self, dim, ffn_dim):
        super().__init__()
        self.gate_proj = nn.Linear(dim, ffn_dim, bias=False, dtype=DTYPE)
        self.up_proj = nn.Linear(dim, ffn_dim, bias=False, dtype=DTYPE)
        self.down_proj = nn.Linear(ffn_dim, dim, bias=False, dtype=DTYPE)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, ffn_dim):
        super().__init__()
        self.input_norm = nn.RMSNorm(dim, eps=1e-5, dtype=DTYPE)
        self.attn = Attention(dim, n_heads, n_kv_heads)
        self.post_norm = nn.RMSNorm(dim, eps=1e-5, dtype=DTYPE)
        self.mlp = MLP(dim, ffn_dim)

    def forward(self, x, cos, sin):
        x = x + self.attn(self.input_norm(x), cos, sin)
        return x + self.mlp(self.post_norm(x))


class Model(nn.Module):
    def __init__(self, dim, n_heads, n_kv_heads, ffn_dim, n_layers, vocab_size, seq_len):
        super().__init__()
        self.layers = nn.ModuleList([Layer(dim, n_heads, n_kv_heads, ffn_dim) for _ in range(n_layers)])
        self.norm = nn.RMSNorm(dim, eps=1e-5, dtype=DTYPE)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False, dtype=DTYPE)
        hd = dim // n_heads
        inv = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        t = torch.arange(seq_len, dtype=torch.float32)[:, None] * inv[None, :]
        emb = torch.cat((t, t), dim=-1)
        self.register_buffer("cos", emb.cos().to(DTYPE))
        self.register_buffer("sin", emb.sin().to(DTYPE))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x, self.cos, self.sin)
        return self.lm_head(self.norm(x))


def get_inputs():
    return [torch.randn(batch_size, seq_len, dim, dtype=DTYPE)]


def get_init_inputs():
    return [dim, n_heads, n_kv_heads, ffn_dim, n_layers, vocab_size, seq_len]
