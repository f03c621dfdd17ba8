"""JAX: a two-layer MLP, x @ W1 + b1 -> jax.nn.gelu (tanh approximation, the JAX default) ->
@ W2 + b2, and the exact (erf) gelu of the output."""
import jax
import jax.numpy as jnp

BATCH = 512
IN_FEATURES = 1024
HIDDEN = 4096
OUT_FEATURES = 512


def fn(x, w1, b1, w2, b2):
    h = jax.nn.gelu(x @ w1 + b1)
    return jax.nn.gelu(h @ w2 + b2, approximate=False)


def get_inputs():
    k = jax.random.split(jax.random.PRNGKey(13), 5)
    return [jax.random.normal(k[0], (BATCH, IN_FEATURES)),
            jax.random.normal(k[1], (IN_FEATURES, HIDDEN)) * 0.03,
            jax.random.normal(k[2], (HIDDEN,)),
            jax.random.normal(k[3], (HIDDEN, OUT_FEATURES)) * 0.015,
            jax.random.normal(k[4], (OUT_FEATURES,))]
