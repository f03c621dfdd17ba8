"""JAX: grouped 1-D convolution, feature_group_count 4, NCH / OIH, VALID padding."""
import jax
import jax.numpy as jnp

BATCH = 32
IN_CHANNELS = 64
OUT_CHANNELS = 128
LENGTH = 4096
KERNEL = 5
GROUPS = 4


def fn(x, w):
    return jax.lax.conv_general_dilated(x, w, window_strides=(1,), padding="VALID",
                                        dimension_numbers=("NCH", "OIH", "NCH"),
                                        feature_group_count=GROUPS)


def get_inputs():
    kx, kw = jax.random.split(jax.random.PRNGKey(5))
    return [jax.random.normal(kx, (BATCH, IN_CHANNELS, LENGTH)),
            jax.random.normal(kw, (OUT_CHANNELS, IN_CHANNELS // GROUPS, KERNEL))]
