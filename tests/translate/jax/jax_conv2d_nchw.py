"""JAX: 2-D convolution via jax.lax.conv_general_dilated, NCHW / OIHW, stride 1, SAME padding."""
import jax
import jax.numpy as jnp

BATCH = 16
IN_CHANNELS = 32
OUT_CHANNELS = 64
HEIGHT = 128
WIDTH = 128
KERNEL = 3


def fn(x, w):
    return jax.lax.conv_general_dilated(x, w, window_strides=(1, 1), padding="SAME",
                                        dimension_numbers=("NCHW", "OIHW", "NCHW"))


def get_inputs():
    kx, kw = jax.random.split(jax.random.PRNGKey(3))
    return [jax.random.normal(kx, (BATCH, IN_CHANNELS, HEIGHT, WIDTH)),
            jax.random.normal(kw, (OUT_CHANNELS, IN_CHANNELS, KERNEL, KERNEL))]
