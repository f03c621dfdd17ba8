"""translate/solar_translate/hf.py's RoutedExperts (the Mixtral block `solar translate --hf`
writes into the model file) against transformers' own MixtralSparseMoeBlock: the same router
and experts' weights, a random batch, float32 on the CPU.  Its loop (what the validation runs
as the reference) must give transformers' numbers, and so must its routing as data (what
torch.export traces and the AIR computes).  Exit 77 without torch and transformers."""
import sys
import unittest.mock

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "translate")
try:
    import torch
    import transformers
    from transformers.models.mixtral.modeling_mixtral import MixtralSparseMoeBlock
except Exception as e:  # noqa: BLE001
    print(f"SKIP: {e}")
    sys.exit(77)
from solar_translate import hf  # noqa: E402

ns = {"torch": torch, "transformers": transformers}
exec(hf.ROUTED_EXPERTS, ns)
failed = 0
for experts, top_k in ((8, 2), (4, 1), (6, 3)):
    torch.manual_seed(experts)
    cfg = transformers.MixtralConfig(hidden_size=32, intermediate_size=48, num_local_experts=experts,
                                     num_experts_per_tok=top_k)
    block = MixtralSparseMoeBlock(cfg).eval()
    x = torch.randn(2, 7, 32)
    with torch.no_grad():
        want, want_logits = block(x)
        routed = ns["RoutedExperts"](block)
        loop, logits = routed(x)
        with unittest.mock.patch.object(torch.compiler, "is_exporting", lambda: True):
            data, _ = routed(x)
    for what, got in (("the loop", loop), ("the routing as data", data)):
        err = (got - want).abs().max().item()
        ok = err <= 1e-5 and torch.equal(logits, want_logits)
        print(f"E={experts} top_k={top_k}: {what}: max |difference| {err:.2e} "
              f"{'PASS' if ok else 'FAIL'}")
        failed += not ok
sys.exit(1 if failed else 0)
