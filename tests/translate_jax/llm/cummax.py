"""A running maximum along the rows: jax.lax.cummax, a primitive the JAX exporter does not
translate, so `solar translate --llm` sends the whole file to the LLM."""
import jax
import jax.numpy as jnp

ROWS = 24
COLS = 40


def fn(x):
    return jax.lax.cummax(x, axis=1)


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(7), (ROWS, COLS))]
