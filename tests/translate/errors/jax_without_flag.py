"""A JAX file (fn and get_inputs, no class Model) translated without --jax: the error must
say to add --jax, not only that there is no class Model."""
import jax.numpy as jnp

N = 8


def fn(x):
    return jnp.tanh(x)


def get_inputs():
    return [jnp.ones((N, N))]
