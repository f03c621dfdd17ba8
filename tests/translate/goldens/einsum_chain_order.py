"""Three-operand torch.einsum: the AIR contracts pairs in the order of fewest flops, whatever
order the equation is written in.  a @ b @ c left to right costs 2*(I*J*K + I*K*L) = 2*(262144
+ 8192) flops; b @ c first costs 2*(J*K*L + I*J*L) = 2*(8192 + 8192), which the AIR takes.
The bilinear form contracts x with w first: 2*(B*N*A*M + B*A*M) = 4896 flops, against 4992
for w with y first and 5376 for x with y (an outer product) first.  The bf16 chain accumulates
each step in f32 and rounds its result to bf16, as bmm does."""
import torch
import torch.nn as nn

I, J, K, L = 64, 64, 64, 2
B, N, A, M = 4, 16, 3, 12


class Model(nn.Module):
    def forward(self, a, b, c, x, w, y, p, q, r):
        return (
            torch.einsum("ij,jk,kl->il", a, b, c),
            torch.einsum("bn,anm,bm->ba", x, w, y),
            torch.einsum("ij,jk,kl->il", p, q, r),
        )


def get_inputs():
    bf = torch.bfloat16
    return [torch.randn(I, J), torch.randn(J, K), torch.randn(K, L),
            torch.randn(B, N), torch.randn(A, N, M), torch.randn(B, M),
            torch.randn(I, J, dtype=bf), torch.randn(J, K, dtype=bf), torch.randn(K, L, dtype=bf)]


def get_init_inputs():
    return []
