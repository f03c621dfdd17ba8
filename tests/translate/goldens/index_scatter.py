"""AIR 1.1 scatters, each one kernel (the copy of the input, then the scatter): scatter_add,
scatter of a tensor and of a number, scatter_reduce amax, index_add with alpha, index_copy,
index_put with and without accumulate, and an embedding-gradient-like zeros().index_add_ (in
place: no copy); one_hot of the targets (values may read the ids freely: no range needed)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

N, M, K, V = 8, 12, 4, 20


class Model(nn.Module):
    def forward(self, x, idx, rows, ids, src):
        a = x.scatter_add(1, idx, src)
        b = x.scatter(1, idx, src)
        c = x.scatter(1, idx, 0.5)
        d = x.scatter_reduce(1, idx, src, "amax")
        e = x.index_add(0, rows, x[:K], alpha=0.5)
        f = x.index_copy(0, rows, x[:K])
        g = x.index_put((rows,), x[0], accumulate=True)
        h = x.index_put((rows,), x[1])
        grad = torch.zeros(V, M).index_add_(0, ids, x)
        oh = F.one_hot(ids, V)
        return a, b, c, d, e, f, g, h, grad, oh


def get_inputs():
    return [torch.randn(N, M), torch.randint(0, M, (N, K)), torch.randperm(N)[:K],
            torch.randint(0, V, (N,)), torch.randn(N, K)]
