"""JAX: broadcast_in_dim from implicit broadcasting: a per-column bias, a per-row scale
(R, 1), and a scalar, against a (B, R, C) tensor."""
import jax
import jax.numpy as jnp

BATCH = 32
ROWS = 256
COLS = 1024


def fn(x, bias, scale):
    return (x + bias) * scale - 0.5


def get_inputs():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(8), 3)
    return [jax.random.normal(k1, (BATCH, ROWS, COLS)), jax.random.normal(k2, (COLS,)),
            jax.random.normal(k3, (ROWS, 1))]
