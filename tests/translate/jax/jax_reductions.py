"""JAX: reduce_sum, reduce_max, reduce_min and mean over different axes, keepdims on some."""
import jax
import jax.numpy as jnp

BATCH = 16
ROWS = 1024
COLS = 512


def fn(x):
    s = jnp.sum(x, axis=1)                          # (B, C)
    mx = jnp.max(x, axis=-1, keepdims=True)          # (B, R, 1)
    mn = jnp.min(x, axis=(0, 2))                     # (R,)
    m = jnp.mean(x, axis=2)                          # (B, R)
    return s.sum() + (mx[..., 0] + m).sum(axis=0) + mn


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(6), (BATCH, ROWS, COLS))]
