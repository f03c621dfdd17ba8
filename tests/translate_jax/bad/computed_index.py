"""x[t + 1]: the gather's index is computed in fn (an add of t), and AIR 1.1 declares value
ranges on inputs only: refused at the line."""
import jax
import jax.numpy as jnp


def fn(x, t):
    return x[t + 1]


def get_inputs():
    return [jnp.zeros((4, 10)), jnp.zeros((4,), jnp.int32)]
