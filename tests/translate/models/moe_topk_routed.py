"""A Mixtral-style sparse MoE block written as routing over all experts with the route as
data: a router (nn.Linear(D, E)), softmax in f32, torch.topk of 2, the renormalised weights,
and each token's two experts' SwiGLU MLPs with the experts' weights gathered by the route
(w1[chosen]: AIR 1.1 reads the expert index inside the weight's index, so the work is two
experts' per token, never E).  The same numbers as transformers' MixtralSparseMoeBlock, which
loops over the experts a batch hits with torch.where (data-sized, untranslatable: moe_layer
in tests/translate/unsupported.txt).  Eager materialises the gathered weights, [T, 2, FF, D],
so this formulation is for small sizes and for its translation."""
import torch
import torch.nn as nn
import torch.nn.functional as F

T, D, FF, E = 16, 32, 48, 8
TOP_K = 2


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        self.w1 = nn.Parameter(torch.randn(E, FF, D) * D ** -0.5)
        self.w3 = nn.Parameter(torch.randn(E, FF, D) * D ** -0.5)
        self.w2 = nn.Parameter(torch.randn(E, D, FF) * FF ** -0.5)

    def forward(self, x):
        weights = F.softmax(self.gate(x), dim=1, dtype=torch.float)
        weights, chosen = torch.topk(weights, TOP_K, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)
        h1 = torch.einsum("td,tkfd->tkf", x, self.w1[chosen])
        h3 = torch.einsum("td,tkfd->tkf", x, self.w3[chosen])
        y = torch.einsum("tkf,tkdf->tkd", F.silu(h1) * h3, self.w2[chosen])
        return (y * weights[..., None]).sum(dim=1)


def get_inputs():
    return [torch.randn(T, D)]


def get_init_inputs():
    return []
