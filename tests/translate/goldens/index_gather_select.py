"""AIR 1.1 gathers: torch.gather along the last dim, take_along_dim with broadcasting (x of one
row per batch, indices per head), index_select of columns, and advanced indexing x[idx]
(rows), x[:, idx] (in place of the indexed dim) and x[idx, :, idx] (non-adjacent: the index
dims first); every index a forward() input declared in the range of the dim it indexes."""
import torch
import torch.nn as nn

B, H, N, K = 4, 3, 32, 8


class Model(nn.Module):
    def forward(self, x, idx, per_head, rows, x3):
        a = torch.gather(x, 1, idx)                                   # [B, K]
        b = torch.take_along_dim(x.unsqueeze(1), per_head, dim=2)     # [B, H, K]
        c = torch.index_select(x, 1, rows)                            # [B, K]
        d = x3[rows]                                                  # [K, N, B]
        e = x3[:, rows]                                               # [B, K, B]
        f = x3[rows, :, rows]                                         # [K, N]
        return a, b, c, d, e, f


def get_inputs():
    return [torch.randn(B, N), torch.randint(0, N, (B, K)), torch.randint(0, N, (B, H, K)),
            torch.randint(0, B, (K,)), torch.randn(B, N, B)]
