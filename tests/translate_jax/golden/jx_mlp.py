"""A linear layer with bias and the tanh gelu (jax.nn.gelu's default), then a row softmax."""
import jax
import jax.numpy as jnp

ROWS = 64
IN_DIM = 96
OUT_DIM = 48


def fn(x, w, b):
    return jax.nn.softmax(jax.nn.gelu(x @ w + b), axis=-1)


def get_inputs():
    k = jax.random.split(jax.random.PRNGKey(3), 3)
    return [jax.random.normal(k[0], (ROWS, IN_DIM)), jax.random.normal(k[1], (IN_DIM, OUT_DIM)) * 0.1,
            jax.random.normal(k[2], (OUT_DIM,))]
