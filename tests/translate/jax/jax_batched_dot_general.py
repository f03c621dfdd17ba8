"""JAX: batched contraction through jax.lax.dot_general with explicit batch dims (0, 0) and a
contraction over the last dim of both operands (A @ B^T per batch)."""
import jax
import jax.numpy as jnp

BATCH = 32
M = 256
N = 512
K = 128


def fn(a, b):
    return jax.lax.dot_general(a, b, dimension_numbers=(((2,), (2,)), ((0,), (0,))))


def get_inputs():
    ka, kb = jax.random.split(jax.random.PRNGKey(1))
    return [jax.random.normal(ka, (BATCH, M, K)), jax.random.normal(kb, (BATCH, N, K))]
