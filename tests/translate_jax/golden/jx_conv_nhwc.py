"""NHWC / HWIO convolution, stride 2, SAME padding, then a relu and a 2x2 max reduce_window."""
import jax
import jax.numpy as jnp

N = 2
H = 32
W = 24
C = 8
K = 16


def fn(x, w):
    y = jax.lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.lax.reduce_window(jax.nn.relu(y), -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")


def get_inputs():
    kx, kw = jax.random.split(jax.random.PRNGKey(4))
    return [jax.random.normal(kx, (N, H, W, C)), jax.random.normal(kw, (3, 3, C, K)) * 0.2]
