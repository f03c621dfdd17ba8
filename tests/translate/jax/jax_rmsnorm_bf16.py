"""JAX: RMSNorm on bfloat16 input, computed in float32 (astype up, reduce, astype down)."""
import jax
import jax.numpy as jnp

BATCH = 4
SEQ = 2048
DIM = 4096
EPS = 1e-6


def fn(x, w):
    xf = x.astype(jnp.float32)
    y = xf * jax.lax.rsqrt(jnp.mean(xf * xf, axis=-1, keepdims=True) + EPS)
    return (y * w.astype(jnp.float32)).astype(jnp.bfloat16)


def get_inputs():
    kx, kw = jax.random.split(jax.random.PRNGKey(15))
    return [jax.random.normal(kx, (BATCH, SEQ, DIM), jnp.bfloat16),
            jax.random.normal(kw, (DIM,), jnp.bfloat16)]
