"""JAX: multi-head scores via jnp.einsum('bhqd,bhkd->bhqk'), two batch dims in dot_general."""
import jax
import jax.numpy as jnp

BATCH = 4
HEADS = 16
SEQ = 512
HEAD_DIM = 64


def fn(q, k):
    return jnp.einsum("bhqd,bhkd->bhqk", q, k)


def get_inputs():
    kq, kk = jax.random.split(jax.random.PRNGKey(2))
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [jax.random.normal(kq, shape), jax.random.normal(kk, shape)]
