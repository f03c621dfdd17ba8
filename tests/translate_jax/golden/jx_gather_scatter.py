"""AIR 1.1 in JAX: a token embedding `E[ids]`, jnp.take_along_axis of one class per row, a row
gather `x[rows]` and an index-add `x.at[rows].add(u)`, and a cross-entropy's pick `logp[jnp.arange(N), tgt]` (the
iota of the index vector an affine index, the targets a data index): each gather one kernel whose index reads the
integer input (declared in the range of the dim it indexes); jnp's normalisation of negative
indices (`select_n(i < 0, i, i + N)`) equals the input there, so its kernels are dropped.
"""
import jax
import jax.numpy as jnp

B, S, VOCAB, DIM, C = 2, 8, 50, 12, 10


def fn(E, ids, logits, tgt, rows, u):
    emb = E[ids]
    pick = jnp.take_along_axis(logits, tgt[:, None], axis=1)
    sel = logits[rows]
    acc = logits.at[rows].add(u)
    ce = -jnp.mean(jax.nn.log_softmax(logits)[jnp.arange(B * S), tgt])
    return emb, pick, sel, acc, ce


def get_inputs():
    k = jax.random.PRNGKey(3)
    return [jax.random.normal(k, (VOCAB, DIM)), jax.random.randint(k, (B, S), 0, VOCAB),
            jax.random.normal(k, (B * S, C)), jax.random.randint(k, (B * S,), 0, C),
            jax.random.randint(k, (B,), 0, B * S), jax.random.normal(k, (B, C))]
