#!/usr/bin/env python3
"""Writes AIR programs of a chosen size, for timing `solar analyze` against the number of kernels.

    python3 bench/gen_models.py llama LAYERS [--rope] [--full] [--lm] > decoder.air
    python3 bench/gen_models.py chain K > chain.air
    python3 bench/gen_models.py mmsm K > stack.air

llama: an N-layer LLaMA-style decoder, batch 1, seq S = 2048, dim D = 4096, 32 heads of 128,
  SwiGLU hidden F = 11008, bf16 activations and weights.  Each op is its own kernel, as eager
  PyTorch launches them: RMSNorm, the q/k/v projections, (RoPE on q and k with --rope), the
  attention scores (causal, j <= i, unless --full), softmax, probabilities x v, the o
  projection, the residual add, RMSNorm, the gate and up projections, SiLU(gate) * up, the
  down projection, the residual add: 15 kernels a layer (16 with --rope), then a final RMSNorm;
  with --lm, the token embedding in front and the LM head and cross-entropy loss behind.
  Every GEMM accumulates in an f32 tmp and rounds once into its bf16 result, as
  examples/matmul_bf16.air does (cuBLAS).
chain: K element-wise kernels over a [4096, 4096] bf16 tensor, each writing a tensor of its own.
mmsm: K kernels repeating matmul, softmax, matmul on [2048, 1024] activations (K rounded down
  to a multiple of 3, at least 3).
Plain Python 3, no dependencies.
"""
import sys


def gemm(out, name, m, n, k, a, b, b_transposed=True):
    """A bf16 GEMM out[i, j] = sum_k a[i, k] * b[j, k] (nn.Linear's weight layout) through an f32
    accumulator `acc_<name>` (declared by the caller)."""
    bidx = "j, kk" if b_transposed else "kk, j"
    out.append(
        f"kernel {name} {{\n"
        f"  for i in 0..{m}, j in 0..{n} {{\n"
        f"    acc_{name}[i, j] = 0;\n"
        f"    for kk in 0..{k} {{\n"
        f"      acc_{name}[i, j] += {a}[i, kk] * {b}[{bidx}];\n"
        f"    }}\n"
        f"    {name}[i, j] = acc_{name}[i, j];\n"
        f"  }}\n"
        f"}}\n")


def rmsnorm(out, name, x, w, rows, dim):
    out.append(
        f"kernel {name} {{\n"
        f"  for s in 0..{rows} {{\n"
        f"    rstd_{name}[s] = 0;\n"
        f"    for d in 0..{dim} {{\n"
        f"      rstd_{name}[s] += {x}[s, d] * {x}[s, d];\n"
        f"    }}\n"
        f"    rstd_{name}[s] = rsqrt(rstd_{name}[s] / {dim} + 1e-6);\n"
        f"    for d in 0..{dim} {{\n"
        f"      {name}[s, d] = {x}[s, d] * rstd_{name}[s] * {w}[d];\n"
        f"    }}\n"
        f"  }}\n"
        f"}}\n")


def lm_ends(decl, body, x):
    """--lm: the token embedding in front (a gather, AIR 1.1) and the LM head with a
    cross-entropy loss behind (the pick of the target's logit, a gather): a whole language
    model's forward with its loss."""
    decl.append("in ids[S], targets[S]: i64 in 0..V;\nin emb[V, D], lm_head[V, D]: bf16;\n"
                "tmp x0[S, D]: bf16;\ntmp logits[S, V]: bf16;\ntmp acc_logits[S, V]: f32;\n"
                "tmp lmx[S], lsm[S]: f32;\nout loss: f32;\n")
    body.insert(0, "kernel embed {\n  for s in 0..S, d in 0..D {\n"
                   "    x0[s, d] = emb[ids[s], d];\n  }\n}\n")
    gemm(body, "logits", "S", "V", "D", x, "lm_head")
    body.append(
        "kernel cross_entropy {\n"
        "  for s in 0..S {\n"
        "    lmx[s] = -inf;\n"
        "    for v in 0..V {\n      lmx[s] max= logits[s, v];\n    }\n"
        "    lsm[s] = 0;\n"
        "    for v in 0..V {\n      lsm[s] += exp(logits[s, v] - lmx[s]);\n    }\n"
        "  }\n"
        "  loss = 0;\n"
        "  for s in 0..S {\n    loss += log(lsm[s]) + lmx[s] - logits[s, targets[s]];\n  }\n"
        "  loss = loss / S;\n"
        "}\n")


def llama(layers, rope, causal, lm=False):
    decl, body = [], []
    decl.append("air 1.1;\n" if lm else "air 1;\n")
    decl.append(f"# {layers}-layer LLaMA-style decoder (bench/gen_models.py llama {layers}"
                f"{' --rope' if rope else ''}{'' if causal else ' --full'}"
                f"{' --lm' if lm else ''})\n")
    decl.append("param S = 2048, D = 4096, H = 32, F = 11008;\n")
    if lm:
        decl.append("param V = 128256;\n")
    decl.append("const HD = 128;\n")
    if not lm:
        decl.append("in x0[S, D]: bf16;\n")
    if rope:
        decl.append("in rope_cos[S, HD], rope_sin[S, HD]: bf16;\n")
    x = "x0"
    for l in range(layers):
        L = f"l{l}"
        decl.append(f"in w_n1_{L}[D], w_n2_{L}[D]: bf16;\n")
        decl.append(f"in wq_{L}[D, D], wk_{L}[D, D], wv_{L}[D, D], wo_{L}[D, D]: bf16;\n")
        decl.append(f"in wg_{L}[F, D], wu_{L}[F, D], wd_{L}[D, F]: bf16;\n")
        decl.append(f"tmp n1_{L}[S, D], n2_{L}[S, D]: bf16;\n")
        decl.append(f"tmp rstd_n1_{L}[S], rstd_n2_{L}[S]: f32;\n")
        for g in ("q", "k", "v", "o"):
            decl.append(f"tmp {g}_{L}[S, D]: bf16;\ntmp acc_{g}_{L}[S, D]: f32;\n")
        if rope:
            decl.append(f"tmp qr_{L}[S, D], kr_{L}[S, D]: bf16;\n")
        decl.append(f"tmp sc_{L}[H, S, S], pr_{L}[H, S, S]: bf16;\n")
        decl.append(f"tmp acc_sc_{L}[H, S, S]: f32;\n")
        decl.append(f"tmp mx_{L}[H, S], sm_{L}[H, S]: f32;\n")
        decl.append(f"tmp at_{L}[S, D]: bf16;\ntmp acc_at_{L}[S, D]: f32;\n")
        decl.append(f"tmp h_{L}[S, D]: bf16;\n")
        for g in ("g", "u"):
            decl.append(f"tmp {g}_{L}[S, F]: bf16;\ntmp acc_{g}_{L}[S, F]: f32;\n")
        decl.append(f"tmp sw_{L}[S, F]: bf16;\n")
        decl.append(f"tmp dn_{L}[S, D]: bf16;\ntmp acc_dn_{L}[S, D]: f32;\n")
        last = l == layers - 1
        y = f"y_{L}"
        decl.append(f"tmp {y}[S, D]: bf16;\n")

        rmsnorm(body, f"n1_{L}", x, f"w_n1_{L}", "S", "D")
        for g in ("q", "k", "v"):
            gemm(body, f"{g}_{L}", "S", "D", "D", f"n1_{L}", f"w{g}_{L}")
        q, k = f"q_{L}", f"k_{L}"
        if rope:
            # rotate-half RoPE of q and k: pairs (d, d + HD/2) of every head
            body.append(
                f"kernel rope_{L} {{\n"
                f"  for s in 0..S, h in 0..H, d in 0..HD // 2 {{\n"
                f"    qr_{L}[s, h*HD + d] = q_{L}[s, h*HD + d] * rope_cos[s, d]"
                f" - q_{L}[s, h*HD + d + HD // 2] * rope_sin[s, d];\n"
                f"    qr_{L}[s, h*HD + d + HD // 2] = q_{L}[s, h*HD + d + HD // 2] * rope_cos[s, d + HD // 2]"
                f" + q_{L}[s, h*HD + d] * rope_sin[s, d + HD // 2];\n"
                f"    kr_{L}[s, h*HD + d] = k_{L}[s, h*HD + d] * rope_cos[s, d]"
                f" - k_{L}[s, h*HD + d + HD // 2] * rope_sin[s, d];\n"
                f"    kr_{L}[s, h*HD + d + HD // 2] = k_{L}[s, h*HD + d + HD // 2] * rope_cos[s, d + HD // 2]"
                f" + k_{L}[s, h*HD + d] * rope_sin[s, d + HD // 2];\n"
                f"  }}\n"
                f"}}\n")
            q, k = f"qr_{L}", f"kr_{L}"
        jhi = "i+1" if causal else "S"
        # scores = q k^T / sqrt(128), 0.08838834764831845 = 1/sqrt(128)
        body.append(
            f"kernel sc_{L} {{\n"
            f"  for h in 0..H, i in 0..S, j in 0..{jhi} {{\n"
            f"    acc_sc_{L}[h, i, j] = 0;\n"
            f"    for d in 0..HD {{\n"
            f"      acc_sc_{L}[h, i, j] += {q}[i, h*HD + d] * {k}[j, h*HD + d];\n"
            f"    }}\n"
            f"    sc_{L}[h, i, j] = acc_sc_{L}[h, i, j] * 0.08838834764831845;\n"
            f"  }}\n"
            f"}}\n")
        body.append(
            f"kernel softmax_{L} {{\n"
            f"  for h in 0..H, i in 0..S {{\n"
            f"    mx_{L}[h, i] = -inf;\n"
            f"    for j in 0..{jhi} {{\n"
            f"      mx_{L}[h, i] max= sc_{L}[h, i, j];\n"
            f"    }}\n"
            f"    sm_{L}[h, i] = 0;\n"
            f"    for j in 0..{jhi} {{\n"
            f"      sm_{L}[h, i] += exp(sc_{L}[h, i, j] - mx_{L}[h, i]);\n"
            f"    }}\n"
            f"    for j in 0..{jhi} {{\n"
            f"      pr_{L}[h, i, j] = exp(sc_{L}[h, i, j] - mx_{L}[h, i]) / sm_{L}[h, i];\n"
            f"    }}\n"
            f"  }}\n"
            f"}}\n")
        body.append(
            f"kernel at_{L} {{\n"
            f"  for h in 0..H, i in 0..S, d in 0..HD {{\n"
            f"    acc_at_{L}[i, h*HD + d] = 0;\n"
            f"    for j in 0..{jhi} {{\n"
            f"      acc_at_{L}[i, h*HD + d] += pr_{L}[h, i, j] * v_{L}[j, h*HD + d];\n"
            f"    }}\n"
            f"    at_{L}[i, h*HD + d] = acc_at_{L}[i, h*HD + d];\n"
            f"  }}\n"
            f"}}\n")
        gemm(body, f"o_{L}", "S", "D", "D", f"at_{L}", f"wo_{L}")
        body.append(
            f"kernel h_{L} {{\n"
            f"  for s in 0..S, d in 0..D {{\n"
            f"    h_{L}[s, d] = {x}[s, d] + o_{L}[s, d];\n"
            f"  }}\n"
            f"}}\n")
        rmsnorm(body, f"n2_{L}", f"h_{L}", f"w_n2_{L}", "S", "D")
        gemm(body, f"g_{L}", "S", "F", "D", f"n2_{L}", f"wg_{L}")
        gemm(body, f"u_{L}", "S", "F", "D", f"n2_{L}", f"wu_{L}")
        body.append(
            f"kernel sw_{L} {{\n"
            f"  for s in 0..S, f in 0..F {{\n"
            f"    sw_{L}[s, f] = g_{L}[s, f] * sigmoid(g_{L}[s, f]) * u_{L}[s, f];\n"
            f"  }}\n"
            f"}}\n")
        gemm(body, f"dn_{L}", "S", "D", "F", f"sw_{L}", f"wd_{L}")
        body.append(
            f"kernel {y} {{\n"
            f"  for s in 0..S, d in 0..D {{\n"
            f"    {y}[s, d] = h_{L}[s, d] + dn_{L}[s, d];\n"
            f"  }}\n"
            f"}}\n")
        x = y
    decl.append(f"in w_final[D]: bf16;\n{'tmp' if lm else 'out'} final[S, D]: bf16;\n"
                "tmp rstd_final[S]: f32;\n")
    rmsnorm(body, "final", x, "w_final", "S", "D")
    if lm:
        lm_ends(decl, body, "final")
    return "".join(decl) + "\n" + "".join(body)


def chain(k):
    k = max(k, 1)
    lines = ["air 1;\n", f"# element-wise chain of {k} kernels (bench/gen_models.py chain {k})\n",
             "param M = 4096, N = 4096;\n", "in x[M, N]: bf16;\n"]
    names = [f"t{i}" for i in range(1, k)] + ["y"]
    if k > 1:
        lines.append("tmp " + ", ".join(f"{t}[M, N]" for t in names[:-1]) + ": bf16;\n")
    lines.append("out y[M, N]: bf16;\n")
    prev = "x"
    for i, t in enumerate(names):
        lines.append(f"kernel k{i} {{\n  for i in 0..M, j in 0..N {{\n"
                     f"    {t}[i, j] = {prev}[i, j] * 2 + 1;\n  }}\n}}\n")
        prev = t
    return "".join(lines)


def mmsm(k):
    units = max(k // 3, 1)
    decl = ["air 1;\n", f"# matmul + softmax + matmul, {units} times ({3 * units} kernels; "
            f"bench/gen_models.py mmsm {k})\n", "param S = 2048, D = 1024;\n", "in x0[S, D]: bf16;\n"]
    body = []
    x = "x0"
    for u in range(units):
        U = f"u{u}"
        y = "y" if u == units - 1 else f"x{u + 1}"
        decl.append(f"in wa_{U}[D, D], wb_{U}[D, D]: bf16;\n")
        decl.append(f"tmp a_{U}[S, D], p_{U}[S, D]: bf16;\ntmp acc_a_{U}[S, D], acc_{y}[S, D]: f32;\n")
        decl.append(f"tmp mx_{U}[S], sm_{U}[S]: f32;\n")
        decl.append(f"{'out' if y == 'y' else 'tmp'} {y}[S, D]: bf16;\n")
        gemm(body, f"a_{U}", "S", "D", "D", x, f"wa_{U}")
        body.append(
            f"kernel p_{U} {{\n"
            f"  for i in 0..S {{\n"
            f"    mx_{U}[i] = -inf;\n"
            f"    for j in 0..D {{\n      mx_{U}[i] max= a_{U}[i, j];\n    }}\n"
            f"    sm_{U}[i] = 0;\n"
            f"    for j in 0..D {{\n      sm_{U}[i] += exp(a_{U}[i, j] - mx_{U}[i]);\n    }}\n"
            f"    for j in 0..D {{\n      p_{U}[i, j] = exp(a_{U}[i, j] - mx_{U}[i]) / sm_{U}[i];\n    }}\n"
            f"  }}\n"
            f"}}\n")
        gemm(body, y, "S", "D", "D", f"p_{U}", f"wb_{U}", b_transposed=False)
        x = y
    return "".join(decl) + "\n" + "".join(body)


def main(argv):
    if len(argv) < 3 or argv[1] not in ("llama", "chain", "mmsm"):
        sys.stderr.write(__doc__)
        return 2
    n = int(argv[2])
    if argv[1] == "llama":
        sys.stdout.write(llama(n, "--rope" in argv[3:], "--full" not in argv[3:],
                               "--lm" in argv[3:]))
    elif argv[1] == "chain":
        sys.stdout.write(chain(n))
    else:
        sys.stdout.write(mmsm(n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
