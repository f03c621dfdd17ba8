"""JAX: jnp.concatenate, a strided jax.lax.slice, a plain slice, and jnp.pad (constant and reflect)."""
import jax
import jax.numpy as jnp

BATCH = 32
DIM_A = 512
DIM_B = 256


def fn(a, b):
    c = jnp.concatenate([a, b], axis=-1)                 # (B, A + B)
    p = jnp.pad(a, ((0, 0), (1, 2)), constant_values=0.5)  # (B, A + 3)
    r = jnp.pad(b, ((0, 0), (2, 2)), mode="reflect")      # (B, B + 4)
    return jax.lax.slice(c, (0, 0), c.shape, (1, 2)).sum(axis=-1) + p[:, 1:-2].sum(axis=-1) + r.mean(axis=-1)


def get_inputs():
    ka, kb = jax.random.split(jax.random.PRNGKey(18))
    return [jax.random.normal(ka, (BATCH, DIM_A)), jax.random.normal(kb, (BATCH, DIM_B))]
