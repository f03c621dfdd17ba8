"""The contraction order solar translate gives torch.einsum (torch_ops._einsum_plan) never
costs more flops than opt_einsum's optimal path, which PyTorch takes when opt_einsum is
installed (and which is no more than its left-to-right path without it): the AIR's work is
at most PyTorch's, so its bound stays a lower bound (docs/translate.md, einsum).
    python3 tests/translate/test_einsum_plan.py      (exit 77: no opt_einsum or sympy here)
"""
import pathlib
import random
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "translate"))
try:
    import opt_einsum
    from solar_translate.torch_ops import _einsum_plan
except ImportError as e:
    print(f"skipped: {e} (the translate tests run on build/venv, which has both)")
    sys.exit(77)


def random_case(rng):
    letters = "abcdefgh"
    sizes = {c: rng.choice([2, 3, 5, 8, 16, 64]) for c in letters}
    used = rng.sample(letters, rng.randint(3, 7))
    ops = [rng.sample(used, rng.randint(1, min(3, len(used)))) for _ in range(rng.randint(2, 5))]
    labels = sorted({c for o in ops for c in o})
    out = rng.sample(labels, rng.randint(0, min(3, len(labels))))
    return ops, out, sizes


class Plan(unittest.TestCase):
    def test_never_above_opt_einsum(self):
        rng = random.Random(7)
        fewer = 0
        for _ in range(300):
            ops, out, sizes = random_case(rng)
            eq = ",".join("".join(o) for o in ops) + "->" + "".join(out)
            shapes = [tuple(sizes[c] for c in o) for o in ops]
            _, info = opt_einsum.contract_path(eq, *shapes, shapes=True, optimize="optimal")
            mine, steps = _einsum_plan([list(o) for o in ops], out, lambda c: sizes[c])
            self.assertLessEqual(mine, int(info.opt_cost), f"{eq} at {shapes}: {steps}")
            fewer += mine < int(info.opt_cost)
        self.assertGreater(fewer, 0)   # summing a label out first can beat any pairwise path

    def test_chain_order(self):
        """a @ b @ c with a thin c: b with c first (bench/einsum/chain_f32.py)."""
        sizes = {"i": 4096, "j": 4096, "k": 4096, "l": 64}
        flops, steps = _einsum_plan([["i", "j"], ["j", "k"], ["k", "l"]], ["i", "l"], sizes.get)
        self.assertEqual(steps[0][:3], ("pair", 1, 2))
        self.assertEqual(flops, 2 * (4096 * 4096 * 64) * 2)

    def test_sum_first(self):
        """bhn,nm->bm: h only in x and not in the output is summed out before the product."""
        sizes = {"b": 64, "h": 32, "n": 1024, "m": 1024}
        flops, steps = _einsum_plan([["b", "h", "n"], ["n", "m"]], ["b", "m"], sizes.get)
        self.assertEqual(steps[0], ("sum", 0, ["b", "n"]))
        self.assertEqual(flops, 64 * 32 * 1024 + 2 * 64 * 1024 * 1024)


if __name__ == "__main__":
    unittest.main()
