"""bf16 attention scores per head: a reshape/transpose split of heads, a batched dot_general
that accumulates in f32 (preferred_element_type), the sum over keys back in bf16."""
import jax
import jax.numpy as jnp

B = 2
S = 16
HEADS = 4
HEAD_DIM = 8


def fn(x):
    h = x.reshape(B, S, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)
    s = jnp.einsum("bhqd,bhkd->bhqk", h, h, preferred_element_type=jnp.float32)
    return s.sum(axis=-1).astype(jnp.bfloat16)


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(5), (B, S, HEADS * HEAD_DIM), jnp.bfloat16)]
