# A hand-written Triton kernel: the exporter does not read it, so triage ranks it with the
# problem's bounds.  (Never run by the tests.)
import torch
import triton
import triton.language as tl


@triton.jit
def _kernel(x, y, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(y + i, tl.load(x + i, mask=m) * 2 + 1, mask=m)


class Model(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
