"""Hand-written Triton kernels shared by the Triton candidates of the pools (bench/pools/*/cand_triton_*.py).

A candidate file holds the Model (the KernelBench convention) and its tile configuration; the
kernel it launches lives here once, so that the 2-3 configs of one kernel are one piece of code.
Every kernel is written in the plainest Triton idiom (pointer arithmetic, masks, fp32
accumulation, one program per row or per output tile), as the Triton tutorials do.

This module imports Triton itself; candidates import it lazily inside forward(), so that every
candidate module imports on a machine without Triton or without a GPU.  A kernel runs on a CUDA
device, or on the CPU under Triton's interpreter (TRITON_INTERPRET=1, which bench/pools/check_cpu.py
--triton sets); anywhere else `need_device` raises a clear error instead of Triton's own.
"""
import os

import torch
import triton
import triton.language as tl


def need_device(*tensors):
    """Raises unless the tensors are on a CUDA device or Triton's interpreter is on."""
    for t in tensors:
        if t.device.type != "cuda" and os.environ.get("TRITON_INTERPRET") != "1":
            raise RuntimeError("this Triton candidate needs a CUDA device "
                               f"(its input is on {t.device.type}; TRITON_INTERPRET=1 runs it on the CPU)")


# ---------------------------------------------------------------------------------------------
# Row softmax.  One program per row; scale multiplies the row first; CAUSAL masks the columns
# above the row's position in its [S, S] block (row % seq), as a causal attention's scores.

@triton.jit
def _softmax_onepass(x_ptr, y_ptr, n_cols, seq, scale, BLOCK: tl.constexpr, CAUSAL: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    if CAUSAL:
        mask = mask & (cols <= row % seq)
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
    x = x * scale
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    e = tl.where(mask, e, 0.0)
    y = e / tl.sum(e, axis=0)
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=cols < n_cols)


@triton.jit
def _softmax_online(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    """Two passes over the row in BLOCK chunks: an online max and sum, then the output."""
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(mask, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        y = tl.exp(x - row_max) / total
        tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def softmax(x, num_warps=8, scale=1.0, causal_seq=0, online_block=0):
    """Softmax over the last dim of a contiguous x (any leading dims).  online_block > 0 uses the
    looped two-pass kernel with that chunk; otherwise one pass with the whole row in registers."""
    need_device(x)
    x = x.contiguous()
    n_cols = x.shape[-1]
    rows = x.numel() // n_cols
    y = torch.empty_like(x)
    if online_block:
        _softmax_online[(rows,)](x, y, n_cols, BLOCK=online_block, num_warps=num_warps)
    else:
        _softmax_onepass[(rows,)](x, y, n_cols, max(causal_seq, 1), scale,
                                  BLOCK=triton.next_power_of_2(n_cols), CAUSAL=causal_seq > 0,
                                  num_warps=num_warps)
    return y


# ---------------------------------------------------------------------------------------------
# Layer norm and RMS norm: one program per row, the row in registers, statistics in fp32.

@triton.jit
def _norm_row(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr, RMS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    if RMS:
        ms = tl.sum(x * x, axis=0) / n_cols
        y = x * (1.0 / tl.sqrt(ms + eps)) * w
    else:
        mean = tl.sum(x, axis=0) / n_cols
        xc = tl.where(mask, x - mean, 0.0)
        var = tl.sum(xc * xc, axis=0) / n_cols
        b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        y = xc * (1.0 / tl.sqrt(var + eps)) * w + b
    tl.store(y_ptr + row * n_cols + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def norm(x, weight, bias, eps, num_warps=8):
    """Layer norm over the last dim (bias None: RMS norm, no mean subtracted)."""
    need_device(x)
    x = x.contiguous()
    n_cols = x.shape[-1]
    y = torch.empty_like(x)
    rms = bias is None
    _norm_row[(x.numel() // n_cols,)](x, weight, weight if rms else bias, y, n_cols, eps,
                                      BLOCK=triton.next_power_of_2(n_cols), RMS=rms,
                                      num_warps=num_warps)
    return y


# ---------------------------------------------------------------------------------------------
# The elementwise chain of bench/pools/elementwise: out = residual + gelu(x + bias) * gamma,
# bias and gamma broadcast over the rows; one program per BLOCK elements.

@triton.jit
def _bias_gelu_scale_residual(x_ptr, r_ptr, b_ptr, g_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    col = offs % n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + col, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + col, mask=mask, other=0.0).to(tl.float32)
    h = x + b
    y = r + 0.5 * h * (1.0 + tl.math.erf(h * 0.7071067811865476)) * g
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_gelu_scale_residual(x, residual, bias, gamma, block=1024, num_warps=4):
    need_device(x)
    x, residual = x.contiguous(), residual.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    _bias_gelu_scale_residual[(triton.cdiv(n, block),)](x, residual, bias, gamma, y, n, x.shape[-1],
                                                         BLOCK=block, num_warps=num_warps)
    return y


# ---------------------------------------------------------------------------------------------
# Matmul C = A @ B (+ bias, GELU), the Triton tutorial's kernel: one program per BM x BN tile of
# C, grouped launch order for L2 reuse, fp32 accumulation over BK slices of K.

@triton.jit
def _matmul(a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
            BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr,
            EPILOGUE: tl.constexpr, DOT_F32: tl.constexpr):
    pid = tl.program_id(0)
    grid_m = tl.cdiv(M, BM)
    grid_n = tl.cdiv(N, BN)
    width = GROUP * grid_n
    group = pid // width
    first_m = group * GROUP
    group_m = min(grid_m - first_m, GROUP)
    pid_m = first_m + (pid % width) % group_m
    pid_n = (pid % width) // group_m
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None].to(tl.int64) * sam + rk[None, :] * sak
    b_ptrs = b_ptr + rk[:, None].to(tl.int64) * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        k_left = K - k * BK
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < k_left) & (rn[None, :] < N), other=0.0)
        if DOT_F32:   # the interpreter only: bf16 is exact in fp32, so the product is the same
            a = a.to(tl.float32)
            b = b.to(tl.float32)
        acc += tl.dot(a, b)
        a_ptrs += BK * sak
        b_ptrs += BK * sbk
    if EPILOGUE:   # + bias[n], then GELU (erf form), in fp32
        bias = tl.load(bias_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
        acc = acc + bias[None, :]
        acc = 0.5 * acc * (1.0 + tl.math.erf(acc * 0.7071067811865476))
    c_ptrs = c_ptr + rm[:, None].to(tl.int64) * scm + rn[None, :] * scn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, bias=None, tile=(128, 128, 64), num_warps=4, num_stages=4):
    """a [M, K] @ b [K, N] (any strides), + bias [N] and GELU when bias is given.  Under
    Triton's interpreter (CPU checks) bf16 tiles are upcast before tl.dot: its numpy dot has no
    bf16; on a GPU the kernel multiplies bf16 on the tensor cores."""
    need_device(a, b)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, dtype=a.dtype, device=a.device)
    bm, bn, bk = tile
    grid = (triton.cdiv(M, bm) * triton.cdiv(N, bn),)
    _matmul[grid](a, b, bias if bias is not None else a, c, M, N, K,
                  a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                  BM=bm, BN=bn, BK=bk, GROUP=8, EPILOGUE=bias is not None,
                  DOT_F32=os.environ.get("TRITON_INTERPRET") == "1" and a.dtype == torch.bfloat16,
                  num_warps=num_warps, num_stages=num_stages)
    return c


# ---------------------------------------------------------------------------------------------
# Row sum: one program per row, BLOCK-wide fp32 partial sums over the row, then one tree sum.

@triton.jit
def _row_sum(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        acc += tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


def row_sum(x, block=1024, num_warps=4):
    need_device(x)
    x = x.contiguous()
    n_cols = x.shape[-1]
    y = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
    _row_sum[(x.numel() // n_cols,)](x, y, n_cols, BLOCK=block, num_warps=num_warps)
    return y


# ---------------------------------------------------------------------------------------------
# Transpose of a contiguous [M, N]: tiled (a T x T tile read along rows, written along the
# output's rows through tl.trans), or element-strided (one program per BLOCK outputs, each
# reading x at stride N: the deliberately poor one).

@triton.jit
def _transpose_tiled(x_ptr, y_ptr, M, N, T: tl.constexpr):
    rm = tl.program_id(0) * T + tl.arange(0, T)
    rn = tl.program_id(1) * T + tl.arange(0, T)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + rm[:, None].to(tl.int64) * N + rn[None, :], mask=mask)
    y_ptrs = y_ptr + rn[:, None].to(tl.int64) * M + rm[None, :]
    tl.store(y_ptrs, tl.trans(tile), mask=(rn[:, None] < N) & (rm[None, :] < M))


@triton.jit
def _transpose_strided(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < M * N
    n = offs // M   # output row = input column
    m = offs % M
    tl.store(y_ptr + offs, tl.load(x_ptr + m * N + n, mask=mask), mask=mask)


def transpose(x, tile=32, num_warps=4, strided=False):
    need_device(x)
    x = x.contiguous()
    M, N = x.shape
    y = torch.empty(N, M, dtype=x.dtype, device=x.device)
    if strided:
        _transpose_strided[(triton.cdiv(M * N, 1024),)](x, y, M, N, BLOCK=1024, num_warps=num_warps)
    else:
        _transpose_tiled[(triton.cdiv(M, tile), triton.cdiv(N, tile))](x, y, M, N, T=tile,
                                                                       num_warps=num_warps)
    return y


# ---------------------------------------------------------------------------------------------
# Cross-entropy per row: one program per row, an online max and sum of exp over BLOCK chunks
# (the logits read once), loss = logsumexp - logit[target]; the mean is taken outside.

@triton.jit
def _cross_entropy_row(x_ptr, t_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], -float("inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + offs
        mask = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        alpha = tl.where(m_new == -float("inf"), 0.0, tl.exp(m - m_new))
        s = s * alpha + tl.where(mask, tl.exp(x - m_new), 0.0)
        m = m_new
    row_max = tl.max(m, axis=0)
    lse = row_max + tl.log(tl.sum(s * tl.exp(m - row_max), axis=0))
    target = tl.load(t_ptr + row)
    picked = tl.load(x_ptr + row * n_cols + target).to(tl.float32)
    tl.store(loss_ptr + row, lse - picked)


def cross_entropy(logits, target, block=2048, num_warps=8):
    """Mean cross-entropy of [N, V] logits against int64 targets [N] (no ignore_index)."""
    need_device(logits)
    logits = logits.contiguous()
    n, v = logits.shape
    loss = torch.empty(n, dtype=torch.float32, device=logits.device)
    _cross_entropy_row[(n,)](logits, target, loss, v, BLOCK=block, num_warps=num_warps)
    return loss.mean().to(logits.dtype)
