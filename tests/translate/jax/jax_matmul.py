"""JAX: a plain matrix product, jnp.matmul -> dot_general with contracting dims ((1,), (0,))."""
import jax
import jax.numpy as jnp

M = 1024
K = 4096
N = 2048


def fn(a, b):
    return jnp.matmul(a, b)


def get_inputs():
    ka, kb = jax.random.split(jax.random.PRNGKey(0))
    return [jax.random.normal(ka, (M, K), jnp.float32), jax.random.normal(kb, (K, N), jnp.float32)]
