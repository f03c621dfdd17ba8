"""JAX: conv_general_dilated in NHWC / HWIO layout with stride 2, rhs dilation 2 and explicit
asymmetric padding ((2, 1), (2, 2))."""
import jax
import jax.numpy as jnp

BATCH = 8
HEIGHT = 256
WIDTH = 256
IN_CHANNELS = 16
OUT_CHANNELS = 32
KERNEL = 3


def fn(x, w):
    return jax.lax.conv_general_dilated(x, w, window_strides=(2, 2), padding=((2, 1), (2, 2)),
                                        rhs_dilation=(2, 2),
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))


def get_inputs():
    kx, kw = jax.random.split(jax.random.PRNGKey(4))
    return [jax.random.normal(kx, (BATCH, HEIGHT, WIDTH, IN_CHANNELS)),
            jax.random.normal(kw, (KERNEL, KERNEL, IN_CHANNELS, OUT_CHANNELS))]
