"""JAX: elementwise primitives: exp, log, tanh, logistic, sqrt, rsqrt, abs, max/min, pow,
integer_pow, erf."""
import jax
import jax.numpy as jnp

BATCH = 512
DIM = 8192


def fn(x, y):
    a = jnp.exp(-x * x) + jnp.log(jnp.abs(y) + 1.0)
    b = jnp.tanh(x) * jax.nn.sigmoid(y) + jnp.sqrt(jnp.abs(x)) * jax.lax.rsqrt(y * y + 1.0)
    c = jnp.maximum(x, y) - jnp.minimum(x, 0.0) + x ** 3 + jnp.power(jnp.abs(y) + 1.0, 0.5)
    return a + b + c + jax.scipy.special.erf(x)


def get_inputs():
    kx, ky = jax.random.split(jax.random.PRNGKey(7))
    return [jax.random.normal(kx, (BATCH, DIM)), jax.random.normal(ky, (BATCH, DIM))]
