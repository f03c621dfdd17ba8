"""jnp.roll at sizes too small to shrink: the jaxpr slices at literal starts (N - 2 written as 4),
so the translation holds only at N = 6.  The validation runs at the file's own sizes, where
comparing the file with itself showed nothing; translate now also translates with the params
doubled and warns that -D on this file is not validated."""
import jax
import jax.numpy as jnp

N, M = 6, 5


def fn(x):
    return jnp.roll(x, 2, axis=0) * 2.0


def get_inputs():
    return [jax.random.normal(jax.random.PRNGKey(0), (N, M))]
