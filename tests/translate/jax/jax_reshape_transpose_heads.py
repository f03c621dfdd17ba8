"""JAX: split heads with reshape + transpose, merge them back with transpose + reshape, and
jnp.swapaxes on negative axes."""
import jax
import jax.numpy as jnp

BATCH = 8
SEQ = 1024
HEADS = 16
HEAD_DIM = 64


def fn(x):
    h = x.reshape(BATCH, SEQ, HEADS, HEAD_DIM).transpose(0, 2, 1, 3)   # (B, H, S, Dh)
    h = jnp.swapaxes(h, -1, -2) * 2.0                                  # (B, H, Dh, S)
    return jnp.transpose(h, (0, 3, 1, 2)).reshape(BATCH, SEQ, HEADS * HEAD_DIM)


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(9), (BATCH, SEQ, HEADS * HEAD_DIM))]
