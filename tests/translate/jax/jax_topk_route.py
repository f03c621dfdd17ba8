"""AIR 1.1 in JAX: a router's top 2 of E experts (jax.lax.top_k over softmax probabilities)
and each token's two experts' weights gathered by the route (w[chosen]), mixed by the
renormalised probabilities; the indices top_k computes are data for the gather (their kernel
writes them in 0..E, a range solar check proves)."""
import jax
import jax.numpy as jnp

T, D, F, E = 16, 8, 12, 8


def fn(x, gate, w):
    p = jax.nn.softmax(x @ gate.T, axis=-1)
    top, chosen = jax.lax.top_k(p, 2)
    top = top / top.sum(axis=-1, keepdims=True)
    h = jnp.einsum("td,tkfd->tkf", x, w[chosen])
    return (h * top[..., None]).sum(axis=1)


def get_inputs():
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
    return [jax.random.normal(k1, (T, D)), jax.random.normal(k2, (E, D)),
            jax.random.normal(k3, (E, F, D))]
