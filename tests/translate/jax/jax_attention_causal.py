"""JAX: causal attention by hand: einsum scores, scale, where-mask, jax.nn.softmax, einsum
with V."""
import jax
import jax.numpy as jnp

BATCH = 2
HEADS = 8
SEQ = 1024
HEAD_DIM = 64


def fn(q, k, v):
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) * (HEAD_DIM ** -0.5)
    mask = jnp.tril(jnp.ones((SEQ, SEQ), dtype=bool))
    p = jax.nn.softmax(jnp.where(mask, s, -jnp.inf), axis=-1)
    return jnp.einsum("bhqk,bhkd->bhqd", p, v)


def get_inputs():
    k = jax.random.split(jax.random.PRNGKey(16), 3)
    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    return [jax.random.normal(k[0], shape), jax.random.normal(k[1], shape),
            jax.random.normal(k[2], shape)]
