"""A row mean and a centred mean square (jnp.mean divides by a count that is a literal at trace
time): the AIR divides by the size, so -D keeps it right and translate has nothing to warn."""
import jax
import jax.numpy as jnp

ROWS = 24
COLS = 40


def fn(x):
    m = jnp.mean(x, axis=-1, keepdims=True)
    return jnp.mean((x - m) ** 2, axis=-1)


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(8), (ROWS, COLS))]
