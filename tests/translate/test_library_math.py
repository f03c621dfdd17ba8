"""Library kernels carry the fastest math mode their library may use (docs/bounds.md, "Library
datapaths").  Three checks:
  1. translate/solar_translate/library_math.py's table is the table of docs/bounds.md;
  2. a model with an f32 matmul, einsum, convolution, SDPA and LSTM, translated under each setting of
     the two TF32 flags, writes each kernel's `[math = ...]` as the docs table says (KernelBench
     level1/97's f32 SDPA gets tf32x3, not strict: its 16.4 ms strict bound was beaten by 8.13 ms);
  3. the translator refuses a library kernel whose mode is stricter than the table's (the guard
     in Frontend.add_op), so a new code path that forgets the table fails loudly.
    python3 tests/translate/test_library_math.py      (exit 77: no torch here)
"""
import pathlib
import re
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "translate"))
try:
    import torch  # noqa: F401
    from solar_translate import library_math, torch_ops
    from solar_translate.opgraph import TranslateError
    from solar_translate.translate import translate_file
except ImportError as e:
    print(f"skipped: {e} (the translate tests run on build/venv)")
    sys.exit(77)

MODEL = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.backends.cuda.matmul.allow_tf32 = {matmul}
torch.backends.cudnn.allow_tf32 = {cudnn}

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.lstm = nn.LSTM(16, 8)

    def forward(self, a, b, x, q, k, v):
        return (a @ b, torch.einsum("ij,jk->ik", a, b), self.conv(x),
                F.scaled_dot_product_attention(q, k, v), self.lstm(a.unsqueeze(1))[0])

def get_inputs():
    return [torch.randn(16, 16), torch.randn(16, 16), torch.randn(2, 4, 8, 8),
            torch.randn(2, 2, 8, 16), torch.randn(2, 2, 8, 16), torch.randn(2, 2, 8, 16)]

def get_init_inputs():
    return []
'''

FLAG = {"matmul": "matmul", "einsum": "matmul", "conv": "cudnn", "sdpa": "matmul", "rnn": "cudnn"}


def docs_table():
    """{kind: (mode with the TF32 flag on, mode with it off)} from docs/bounds.md."""
    text = (ROOT / "docs" / "bounds.md").read_text()
    sec = text.split("### Library datapaths", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in sec.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[2] in library_math.ORDER:
            rows[cells[0]] = (cells[2], cells[3])
    return rows


def translate(matmul, cudnn):
    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "lib_kernels.py"
        path.write_text(MODEL.format(matmul=matmul, cudnn=cudnn))
        r = translate_file(str(path), {})
    modes = {}
    for op in r.graph.ops:
        if op.kind in FLAG:
            m = re.search(rf"^kernel {re.escape(op.name)}(?: \[math = (\w+)\])? \{{", r.text, re.M)
            modes.setdefault(op.kind, set()).add(m.group(1) if m else None)
    return modes


class LibraryMath(unittest.TestCase):
    def test_code_table_is_docs_table(self):
        docs = docs_table()
        self.assertEqual(set(docs), set(library_math.LIBRARY_MATH))
        for kind, (flag, on, off) in library_math.LIBRARY_MATH.items():
            self.assertEqual(docs[kind], (on, off), kind)

    def test_translations_follow_the_table(self):
        docs = docs_table()
        for matmul in (False, True):
            for cudnn in (False, True):
                modes = translate(matmul, cudnn)
                self.assertEqual(set(modes), set(FLAG), (matmul, cudnn))
                for kind, got in modes.items():
                    on = matmul if FLAG[kind] == "matmul" else cudnn
                    want = docs[kind][0 if on else 1]
                    self.assertEqual(got, {want}, f"{kind} with the TF32 flag {on}")

    def test_level1_97_sdpa_is_not_strict(self):
        self.assertEqual(translate(False, True)["sdpa"], {"tf32x3"})

    def test_stricter_mode_is_refused(self):
        real = torch_ops.library_math
        torch_ops.library_math = lambda fe, kind, dtype: "strict" if dtype == "f32" else None
        try:
            with self.assertRaisesRegex(TranslateError, "stricter than the library may use"):
                translate(False, True)
        finally:
            torch_ops.library_math = real


if __name__ == "__main__":
    unittest.main()
