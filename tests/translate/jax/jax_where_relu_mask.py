"""JAX: jnp.where (select_n) with a comparison mask, jax.nn.relu, and a causal mask built from
jnp.tril of ones."""
import jax
import jax.numpy as jnp

BATCH = 16
SEQ = 1024


def fn(x):
    r = jax.nn.relu(x)
    causal = jnp.tril(jnp.ones((SEQ, SEQ), dtype=bool))
    masked = jnp.where(causal, x, -1e9)
    return jnp.where(x > 0.5, r, masked * 0.0 + x)


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(10), (BATCH, SEQ, SEQ))]
