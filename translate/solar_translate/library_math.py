"""The math mode of a library kernel that a translation keeps whole (docs/bounds.md, "Library
datapaths").

PyTorch hands matmuls to cuBLAS/cuBLASLt, convolutions to cuDNN and attention to one of the SDPA
backends, and each library picks its own datapath for f32 operands.  A translated kernel must
carry the FASTEST math mode the library may use under the flags in effect, or its bound can be
beaten by the library's choice (KernelBench level1/97: f32 SDPA bounded at 16.4 ms on SIMT f32
while the memory-efficient backend ran it in 8.13 ms on TF32 tensor cores).  The table below is
the one place that says which; tests/translate/test_library_math.py holds it against the table
in docs/bounds.md and against what the translator writes, and Frontend.add_op refuses a library
kernel whose mode is stricter than the table's.
"""

# Modes from slowest to fastest for an f32 contraction (rule "contraction").
ORDER = ("strict", "tf32x3", "tf32")

# kind of kernel -> (the flag that allows one-pass TF32, mode with the flag on, mode with it off)
#   matmul, einsum: cuBLAS/cuBLASLt; PyTorch asks for CUBLAS_COMPUTE_32F_FAST_TF32 only when
#     torch.backends.cuda.matmul.allow_tf32 (float32_matmul_precision "high"/"medium"), else a
#     true f32 GEMM (on Blackwell cuBLAS may still emulate it: the device's tensor.f32 peak);
#     torch.einsum contracts through bmm, the same library.
#   conv: cuDNN; PyTorch sets CUDNN_TENSOR_OP_MATH (TF32) when torch.backends.cudnn.allow_tf32
#     (True by default), else CUDNN_DEFAULT_MATH.
#   rnn: cuDNN's cudnnRNNForward (nn.LSTM, nn.GRU, nn.RNN); PyTorch leaves the RNN descriptor at
#     CUDNN_DEFAULT_MATH (TF32 allowed) for f32 when torch.backends.cudnn.allow_tf32, else
#     CUDNN_FMA_MATH (aten/src/ATen/cudnn/Descriptors.h, RNNDescriptor::set).
#   sdpa: f32 inputs take the math backend (bmm through cuBLAS: TF32 when allowed) or the
#     memory-efficient backend, whose CUTLASS kernels run f32 on sm80+ with
#     OpMultiplyAddFastF32 (three TF32 products) whatever the flag says
#     (aten/src/ATen/native/transformers/cuda/mem_eff_attention/gemm_kernel_utils.h,
#     DefaultGemmType for float on kMinComputeCapability >= 80); flash and cuDNN take no f32.
LIBRARY_MATH = {
    "matmul": ("matmul", "tf32", "strict"),
    "einsum": ("matmul", "tf32", "strict"),
    "conv": ("cudnn", "tf32", "strict"),
    "conv_weight_grad": ("cudnn", "tf32", "strict"),   # a convolution's backward (train.py)
    "rnn": ("cudnn", "tf32", "strict"),
    "sdpa": ("matmul", "tf32", "tf32x3"),
}


def library_math(fe, kind, dtype):
    """The math mode for a `kind` kernel on operands of `dtype` (None: not f32, no mode)."""
    if dtype != "f32":
        return None
    flag, on, off = LIBRARY_MATH[kind]
    allowed = fe.cudnn_tf32 if flag == "cudnn" else fe.matmul_tf32
    return on if allowed else off


def stricter(mode, than):
    """Whether math mode `mode` is slower (stricter) than `than`."""
    return ORDER.index(mode or "strict") < ORDER.index(than or "strict")
