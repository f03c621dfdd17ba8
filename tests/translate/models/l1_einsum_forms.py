"""torch.einsum in its forms: a contraction, a diagonal and a transpose (views), a trace, a total
sum, an outer product, an ellipsis with a broadcast batch, an implicit output, spaces and
uppercase labels, a size-1 dim that broadcasts, and sums of labels only one operand has
(summed out first, as torch does)."""
import torch
import torch.nn as nn

I, J, K, L = 6, 8, 5, 7


class Model(nn.Module):
    def forward(self, a, b, sq, v, w, e1, e2, col, bt):
        return (
            torch.einsum("ij,jk->ik", a, b),
            torch.einsum("ii->i", sq),
            torch.einsum("ii", sq),
            torch.einsum("ij->ji", a),
            torch.einsum("ij->", a),
            torch.einsum("i,j->ij", v, w),
            torch.einsum("...ij,...jk->...ik", e1, e2),
            torch.einsum("ij,jk", a, b),
            torch.einsum("iJ, Jk -> ki", a, b),
            torch.einsum("ij,ij->ij", col, a),
            torch.einsum("ij,kj->", a, bt),
        )


def get_inputs():
    return [torch.randn(I, J), torch.randn(J, K), torch.randn(I, I), torch.randn(I), torch.randn(J),
            torch.randn(2, 3, I, J), torch.randn(3, J, K), torch.randn(I, 1), torch.randn(K, J)]


def get_init_inputs():
    return []
