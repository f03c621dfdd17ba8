"""Outputs in fn's order: the first is a view of an input (copied into an out tensor by a kernel
added after the others), the second computed.  The out tensors were declared computed first, so
the harness bound output 0 to the wrong tensor ('shape differs', exit 1)."""
import jax
import jax.numpy as jnp

C, N = 4, 6


def fn(y, a):
    return jnp.tile(y, (2, 1)), jnp.tanh(a) @ a


def get_inputs():
    ka, kb = jax.random.split(jax.random.PRNGKey(0))
    return [jax.random.normal(ka, (C, N)), jax.random.normal(kb, (8, 8))]
