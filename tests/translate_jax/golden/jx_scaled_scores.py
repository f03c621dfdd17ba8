"""Attention scores scaled by HEAD_DIM ** -0.5: a literal of the AIR that depends on a size, so
-D HEAD_DIM on the written file would be wrong; translate warns (jx_scaled_scores.warn)."""
import jax
import jax.numpy as jnp

SEQ = 32
HEAD_DIM = 16


def fn(q, k):
    return (q @ k.T) * (HEAD_DIM ** -0.5)


def get_inputs():
    kq, kk = jax.random.split(jax.random.PRNGKey(6))
    return [jax.random.normal(kq, (SEQ, HEAD_DIM)), jax.random.normal(kk, (SEQ, HEAD_DIM))]
