#!/usr/bin/env python3
"""Unit tests of validate/harness.py, the reference side of `solar validate`.

    python3 tests/unit/test_harness.py [-v] [TestClass[.test_name] ...]

Runs under any python3: it re-executes itself, like the harness, under SOLAR_PYTHON or
/usr/bin/python3 when this interpreter lacks numpy or torch (scripts/deps.sh installs Debian's
python3-torch and python3-numpy).  It never skips for want of torch: without it, it fails.
Most tests call the harness in this process (one torch import); a few run it as a command to
check its command-line behaviour: exit status, one-line reasons, the choice of interpreter.
The JAX test runs where jax imports; elsewhere it checks the clear error instead.
"""
import contextlib
import io
import json
import math
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
HARNESS = ROOT / "validate" / "harness.py"
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(ROOT / "validate"))
import harness  # noqa: E402

if __name__ == "__main__":
    try:
        harness.ensure_interpreter(["numpy", "torch"], script=__file__)
    except harness.HarnessError as e:
        print(f"test_harness: {e}", file=sys.stderr)
        sys.exit(1)

import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402


# ---------------------------------------------------------------------------------------------
# helpers

def air_json_from_source(path, defines=None):
    """air.json for an .air file, as the C side writes it: params (with -D), and every tensor
    with its shape evaluated.  Enough AIR for the examples: param/const lists and declarations
    whose extents are expressions of params and consts (// is floor division, as in Python)."""
    src = re.sub(r"#[^\n]*", "", pathlib.Path(path).read_text())
    env, params = {}, {}
    for kind, body in re.findall(r"\b(param|const)\s+([^;]*);", src):
        for item in body.split(","):
            name, val = (s.strip() for s in item.split("="))
            env[name] = int(eval(val, {}, dict(env)))
            if kind == "param":
                params[name] = env[name]
    for k, v in (defines or {}).items():
        env[k] = params[k] = v
    # consts may depend on nothing but literals; params are now final
    tensors = []
    # a declaration's dtype may carry a value range (AIR 1.1: `i64 in 0..V`); a scalar has no
    # dims (`out loss: f32;`)
    decl = r"\b(inout|in|out|tmp)\s+([^;:]*):\s*(\w+)\s*(?:in\s[^;]*)?;"
    for role, body, dtype in re.findall(decl, src):
        for name, dims in re.findall(r"(\w+)\s*(?:\[([^\]]*)\])?\s*(?:,|$)", body.strip()):
            shape = [int(eval(d, {}, dict(env))) for d in dims.split(",")] if dims else []
            tensors.append({"name": name, "role": role, "dtype": dtype, "shape": shape})
    return {"program": str(path), "params": params, "tensors": tensors}


def write_air(d, obj):
    p = pathlib.Path(d) / "air.json"
    p.write_text(json.dumps(obj))
    return p


def inproc(argv):
    """Runs harness.main(argv) here; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = harness.main([str(a) for a in argv])
        except SystemExit as e:   # argparse's errors
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def command(argv, env=None):
    """Runs harness.py as a command with this interpreter."""
    e = dict(os.environ)
    e.pop("SOLAR_HARNESS_REEXEC", None)
    e.update(env or {})
    p = subprocess.run([sys.executable, str(HARNESS)] + [str(a) for a in argv],
                       capture_output=True, text=True, env=e, timeout=300)
    return p.returncode, p.stdout, p.stderr


class TempDir(unittest.TestCase):
    def setUp(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="solar-harness-"))

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def model(self, text, name="model.py"):
        p = self.dir / name
        p.write_text(text)
        return p

    def run_ref(self, ref, air, *extra, expect=0):
        air_path = write_air(self.dir, air) if isinstance(air, dict) else air
        rc, out, err = inproc(["run", "--ref", ref, "--air", air_path, "--dir", self.dir,
                               "--device", "cpu", *extra])
        self.assertEqual(rc, expect, f"stdout: {out}\nstderr: {err}")
        return err

    def compare(self, *extra, expect=None):
        rc, out, err = inproc(["compare", "--air", self.dir / "air.json", "--dir", self.dir,
                               *extra])
        if expect is not None:
            self.assertEqual(rc, expect, f"stdout: {out}\nstderr: {err}")
        return rc, (json.loads(out) if out.strip() else None), err

    def assert_one_line(self, err, *needles):
        lines = [ln for ln in err.splitlines() if not ln.startswith("harness: warning:")]
        self.assertEqual(len(lines), 1, f"expected one line on stderr, got: {err!r}")
        for n in needles:
            self.assertIn(n, lines[0])
        return lines[0]


def t(name, role, dtype, shape):
    return {"name": name, "role": role, "dtype": dtype, "shape": list(shape)}


# ---------------------------------------------------------------------------------------------
# compare

class Compare(TempDir):
    def setup_pair(self, ref, air_arr, dtype="f32", role="out", name="y", ref_json=None,
                   program=None, extra_tensors=()):
        obj = {"program": program or "synthetic", "params": {},
               "tensors": list(extra_tensors) + [t(name, role, dtype, np.shape(ref))]}
        write_air(self.dir, obj)
        np.save(self.dir / f"ref_{name}.npy", ref)
        if air_arr is not None:
            np.save(self.dir / f"air_{name}.npy", air_arr)
        if ref_json is not None:
            (self.dir / "ref.json").write_text(json.dumps(ref_json))

    def setUp(self):
        super().setUp()
        self.r = np.random.default_rng(0).standard_normal((8, 4, 16)).astype(np.float32)

    def test_pass_within_tolerance(self):
        self.setup_pair(self.r, self.r * np.float32(1 + 1e-6))
        rc, v, _ = self.compare(expect=0)
        self.assertTrue(v["pass"])
        o = v["outputs"][0]
        self.assertEqual(o["name"], "y")
        self.assertEqual(o["tol"], 1e-4)
        self.assertLess(o["rel_l2"], 1e-5)
        self.assertGreater(o["max_abs"], 0)
        self.assertTrue(o["pass"])
        self.assertEqual(o["reason"], "")

    # The float64 rule: ref64_y.npy (the reference run in float64), air64_y.npy (the AIR
    # program run in float64).  x is the exact result; the reference and the AIR are 3e-4 and
    # 4e-4 off it in independent directions, so they are 5e-4 apart (tol 1e-4).
    def float64_case(self, ref_off, air_off, air64_off=None, ref_json=None, acc_off=None,
                     dec_off=None):
        g = np.random.default_rng(1)
        x = self.r.astype(np.float64)
        n = np.linalg.norm(x)

        def off(e):
            d = g.standard_normal(x.shape)
            return x + d * (e * n / np.linalg.norm(d))
        self.setup_pair(off(ref_off).astype(np.float32), off(air_off).astype(np.float32),
                        ref_json=ref_json)
        np.save(self.dir / "ref64_y.npy", x)
        if air64_off is not None:
            np.save(self.dir / "air64_y.npy", off(air64_off))
        if acc_off is not None:   # the accumulator run: its f32 sums held in f64
            np.save(self.dir / "airacc_y.npy", off(acc_off).astype(np.float32))
        if dec_off is not None:   # the reference's decomposed run: f32 normalizations
            np.save(self.dir / "refdec_y.npy", off(dec_off).astype(np.float32))

    def test_float64_rule_passes_within_the_multiple_of_the_references_error(self):
        self.float64_case(3e-4, 4e-4)   # failed before the float64 rule: rel_l2 5e-4 > 1e-4
        rc, v, _ = self.compare(expect=0)
        o = v["outputs"][0]
        self.assertGreater(o["rel_l2"], 1e-4)
        self.assertAlmostEqual(o["rel_l2_f64"], 4e-4, delta=2e-5)
        self.assertAlmostEqual(o["ref_rel_l2_f64"], 3e-4, delta=2e-5)
        self.assertAlmostEqual(o["tol_f64"], 4e-4)   # 4 x the reference's own, up to tol
        self.assertIn("against float64: rel_l2 0.0004", o["check"])

    def test_float64_errors_reported_when_within_tol(self):
        self.float64_case(2e-5, 3e-5)
        rc, v, _ = self.compare(expect=0)
        o = v["outputs"][0]
        self.assertAlmostEqual(o["rel_l2_f64"], 3e-5, delta=2e-6)
        self.assertAlmostEqual(o["ref_rel_l2_f64"], 2e-5, delta=2e-6)
        self.assertNotIn("check", o)   # the first test decided

    def test_float64_rule_fails_beyond_the_multiple(self):
        self.float64_case(2e-5, 2e-4)   # 10 x the reference's own error: wrong
        rc, v, _ = self.compare(expect=1)
        o = v["outputs"][0]
        self.assertAlmostEqual(o["tol_f64"], 1e-4)
        self.assertIn("against float64 rel_l2 0.0002 > 0.0001 = max(tol, 4 x the reference's "
                      "own 2e-05)", o["reason"])

    def test_float64_rule_counts_the_references_error_up_to_tol(self):
        # a reference far off its float64 run (random numbers in forward) loosens no further
        self.float64_case(0.5, 5e-4)
        rc, v, _ = self.compare(expect=1)
        self.assertAlmostEqual(v["outputs"][0]["tol_f64"], 4e-4)
        self.assertIn("counted up to tol", v["outputs"][0]["reason"])

    def test_float64_rule_with_the_air_run_in_float64(self):
        # the AIR's own error 3e-4 is 10 x the reference's, but its float64 run matches
        self.float64_case(3e-5, 3e-4, air64_off=1e-13)
        rc, v, _ = self.compare(expect=0)
        self.assertIn("the AIR's float64 run within tol", v["outputs"][0]["check"])
        self.float64_case(3e-5, 3e-4, air64_off=2e-4)   # its float64 run is off: a wrong AIR
        rc, v, _ = self.compare(expect=1)
        self.assertIn("the AIR run in float64: rel_l2 0.0002 > tol", v["outputs"][0]["reason"])
        self.float64_case(3e-5, 2e-3, air64_off=1e-13)  # own error above 10 x tol: still wrong
        rc, v, _ = self.compare(expect=1)
        self.assertIn("but its own error 0.002 > 10 x tol", v["outputs"][0]["reason"])
        # an ill-conditioned model, where f32 is noise: the reference 0.9 off its float64 run,
        # the AIR 0.25, its float64 run right (KernelBench's EfficientNet-B2 at batch 2)
        self.float64_case(0.9, 0.25, air64_off=1e-7)
        rc, v, _ = self.compare(expect=0)
        self.assertIn("its own error 0.25 <= 4 x the reference's own 0.9", v["outputs"][0]["check"])

    def test_float64_rule_with_the_accumulator_run(self):
        # the AIR's own error 5e-3 is its serial sums' (KernelBench's ResNetBasicBlock training
        # step: a bias gradient summed over 501760 elements one by one): with them exact it is
        # 3e-6, within the ceiling; it failed before the accumulator run
        self.float64_case(1e-6, 5e-3, air64_off=1e-14, acc_off=3e-6)
        rc, v, _ = self.compare(expect=0)
        o = v["outputs"][0]
        self.assertIn("its own error 0.005 is its serial sums': with them exact (rounded once) "
                      "3e-06 <= 10 x tol", o["check"])
        self.assertAlmostEqual(o["airacc_rel_l2"], 3e-6, delta=3e-7)
        # still off with its sums exact: the AIR's rounding is worse than the model's (a
        # cancellation of its own, a narrower tmp), and it fails
        self.float64_case(1e-6, 5e-3, air64_off=1e-14, acc_off=4e-3)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("but its own error 0.005 > 10 x tol, 0.004 with its sums exact (rounded "
                      "once)", v["outputs"][0]["reason"])
        # the accumulator run does not save a program whose float64 run is off
        self.float64_case(1e-6, 5e-3, air64_off=2e-4, acc_off=1e-6)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("the AIR run in float64: rel_l2 0.0002 > tol", v["outputs"][0]["reason"])

    def test_float64_rule_with_the_decomposed_run(self):
        # KernelBench's MobileNetV1 training step at batch 2: PyTorch's CPU batch norm sums in
        # double (its f32 run 2.5e-5 off float64), PyTorch's own f32 decompositions of it
        # 1.1e-2; the AIR, right in float64, 6e-2 off (serial sums), 4.8e-3 with its sums exact.
        # It failed before.
        self.float64_case(2.5e-5, 6e-2, air64_off=6e-14, acc_off=4.8e-3, dec_off=1.1e-2)
        rc, v, _ = self.compare(expect=0)
        o = v["outputs"][0]
        self.assertIn("0.0048 <= 4 x the reference's decomposed run's 0.011", o["check"])
        self.assertAlmostEqual(o["refdec_rel_l2"], 1.1e-2, delta=1e-4)
        # a decomposed run as accurate as the reference loosens nothing
        self.float64_case(2.5e-5, 6e-2, air64_off=6e-14, acc_off=4.8e-3, dec_off=1e-5)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("> 10 x tol", v["outputs"][0]["reason"])
        # the AIR still above 4 x the decomposed run's error fails
        self.float64_case(2.5e-5, 6e-2, air64_off=6e-14, acc_off=4.8e-3, dec_off=1e-3)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("> 4 x the reference's decomposed run's 0.001", v["outputs"][0]["reason"])
        # and it does not save a program whose float64 run is off
        self.float64_case(2.5e-5, 6e-2, air64_off=2e-4, acc_off=1e-3, dec_off=1e-1)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("the AIR run in float64: rel_l2 0.0002 > tol", v["outputs"][0]["reason"])

    def vanishing_case(self, air_scale, air64_scale, acc_scale=None):
        # an output whose exact value is zero (a conv bias before a training-mode batch norm,
        # KernelBench's UNet): the f32 runs hold rounding (the reference's norm ~1e-6), the
        # float64 runs rounding a billion times smaller
        g = np.random.default_rng(2)
        noise = lambda e: e * g.standard_normal(self.r.shape)   # noqa: E731
        self.setup_pair(noise(1e-6).astype(np.float32), noise(air_scale).astype(np.float32))
        np.save(self.dir / "ref64_y.npy", noise(1e-15))
        np.save(self.dir / "air64_y.npy", noise(air64_scale))
        if acc_scale is not None:
            np.save(self.dir / "airacc_y.npy", noise(acc_scale).astype(np.float32))

    def test_float64_rule_vanishing_output(self):
        self.vanishing_case(2e-6, 1e-15)   # rel_l2 ~2: failed before the rule
        rc, v, _ = self.compare(expect=0)
        self.assertIn("vanishes: its float64 value is", v["outputs"][0]["check"])
        self.assertIn("<= 4 x the reference's", v["outputs"][0]["check"])
        # the AIR's rounding 20 x the reference's: fails, unless its sums exact bring it down
        self.vanishing_case(2e-5, 1e-15)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("> 4 x the reference's", v["outputs"][0]["reason"])
        self.vanishing_case(2e-5, 1e-15, acc_scale=1e-6)
        rc, v, _ = self.compare(expect=0)
        self.assertIn("with its sums exact) <= 4 x", v["outputs"][0]["check"])
        # the AIR in float64 is not zero: a wrong program (the rule does not apply)
        self.vanishing_case(2e-6, 1e-7)
        rc, v, _ = self.compare(expect=1)
        self.assertNotIn("vanishes", v["outputs"][0]["reason"])
        self.assertIn("the AIR run in float64: rel_l2", v["outputs"][0]["reason"])

    def test_without_a_float64_reference_says_so(self):
        self.setup_pair(self.r, self.r * np.float32(1 + 1e-3), ref_json={
            "ok": True, "float64": {"written": [], "not_written": {"y": "forward() in float64 "
                                                                 "raised RuntimeError: no kernel"}}})
        rc, v, _ = self.compare(expect=1)
        o = v["outputs"][0]
        self.assertIn("judged against the reference alone: no float64 run of the reference "
                      "(forward() in float64 raised RuntimeError: no kernel)", o["reason"])
        self.assertNotIn("rel_l2_f64", o)

    def test_planted_mismatch_names_where(self):
        a = self.r.copy()
        a[3, 2, :] += 1.0          # one row wrong: an off-by-one in a bound does this
        self.setup_pair(self.r, a)
        rc, v, _ = self.compare(expect=1)
        self.assertFalse(v["pass"])
        o = v["outputs"][0]
        self.assertFalse(o["pass"])
        self.assertGreater(o["rel_l2"], 1e-4)
        self.assertAlmostEqual(o["max_abs"], 1.0, places=5)
        self.assertIn("16 of 512 elements differ", o["reason"])
        self.assertIn("within [3, 2, 0:16]", o["reason"])
        self.assertIn("worst at [3, 2,", o["reason"])

    def test_nan_where_reference_is_finite_fails(self):
        a = self.r.copy()
        a[0, 1, 5] = np.nan        # an element the AIR program never wrote (poisoned)
        self.setup_pair(self.r, a)
        rc, v, _ = self.compare(expect=1)
        reason = v["outputs"][0]["reason"]
        self.assertIn("1 non-finite values (1 NaN, 0 Inf)", reason)
        self.assertIn("first at [0, 1, 5]", reason)
        # the other elements are equal: the error norms see only finite pairs
        self.assertEqual(v["outputs"][0]["rel_l2"], 0.0)

    def test_inf_fails(self):
        a = self.r.copy()
        a[7, 3, 15] = np.inf
        self.setup_pair(self.r, a)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("(0 NaN, 1 Inf)", v["outputs"][0]["reason"])

    def test_nonfinite_reference_must_match(self):
        r = self.r.copy()
        r[0, 0, 0] = -np.inf
        r[1, 0, 0] = np.nan
        self.setup_pair(r, r.copy())
        self.compare(expect=0)
        a = r.copy()
        a[0, 0, 0] = 0.0
        self.setup_pair(r, a)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("where the reference is not finite differ, first at [0, 0, 0]",
                      v["outputs"][0]["reason"])

    def test_shape_mismatch_fails(self):
        self.setup_pair(self.r, self.r.reshape(8, 64))
        rc, v, _ = self.compare(expect=1)
        self.assertIn("shape [8, 64] of air differs from the reference's [8, 4, 16]",
                      v["outputs"][0]["reason"])

    def test_missing_air_file_fails(self):
        self.setup_pair(self.r, None)
        rc, v, _ = self.compare(expect=1)
        self.assertIn("air_y.npy is missing", v["outputs"][0]["reason"])

    def test_missing_reference_is_usage_error(self):
        write_air(self.dir, {"program": "p", "params": {}, "tensors": [t("y", "out", "f32", [2])]})
        rc, v, err = self.compare(expect=2)
        self.assert_one_line(err, "ref_y.npy is missing")

    def test_failed_reference_run_is_usage_error(self):
        self.setup_pair(self.r, self.r, ref_json={"ok": False, "error": "binding: boom"})
        rc, v, err = self.compare(expect=2)
        self.assert_one_line(err, "the reference run failed: binding: boom")

    def test_integers_compare_exactly(self):
        r = np.arange(24, dtype=np.int32).reshape(4, 6)
        self.setup_pair(r, r.copy(), dtype="i32")
        rc, v, _ = self.compare(expect=0)
        self.assertEqual(v["outputs"][0]["tol"], 0.0)
        a = r.copy()
        a[2, 5] += 1
        self.setup_pair(r, a, dtype="i32")
        rc, v, _ = self.compare("--tol", "0.5", expect=1)   # --tol leaves ints exact
        self.assertIn("1 of 24 elements differ, within [2, 5]", v["outputs"][0]["reason"])

    def test_scalar_output(self):
        r = np.array(2.5, np.float32)
        self.setup_pair(r, np.array(2.5, np.float32))
        self.compare(expect=0)
        self.setup_pair(r, np.array(np.nan, np.float32))
        rc, v, _ = self.compare(expect=1)
        self.assertIn("1 non-finite values", v["outputs"][0]["reason"])
        self.setup_pair(r, np.array(3.0, np.float32))
        rc, v, _ = self.compare(expect=1)
        self.assertIn("worst at [0]: air 3, reference 2.5", v["outputs"][0]["reason"])

    def test_bool_exact(self):
        r = np.array([True, False, True])
        self.setup_pair(r, np.array([True, True, True]), dtype="bool")
        self.compare(expect=1)

    def test_zero_reference_guard(self):
        z = np.zeros((4, 4), np.float32)
        self.setup_pair(z, z.copy())
        rc, v, _ = self.compare(expect=0)
        self.assertEqual(v["outputs"][0]["rel_l2"], 0.0)
        a = z.copy()
        a[1, 1] = 1e-3
        self.setup_pair(z, a)
        rc, v, _ = self.compare(expect=1)
        self.assertAlmostEqual(v["outputs"][0]["rel_l2"], 1e-3, places=9)
        self.assertIn("all zero", v["outputs"][0]["reason"])

    def noisy(self, rel):
        n = np.random.default_rng(1).standard_normal(self.r.shape)
        return (self.r + rel * np.linalg.norm(self.r) / np.linalg.norm(n) * n).astype(np.float32)

    def test_tolerance_by_dtype(self):
        a = self.noisy(1e-2)
        for dtype, want_rc, tol in (("f32", 1, 1e-4), ("bf16", 0, 2e-2), ("f16", 0, 2e-2),
                                    ("f8e4m3", 0, 1e-1), ("f8e5m2", 0, 1e-1)):
            self.setup_pair(self.r, a, dtype=dtype)
            rc, v, _ = self.compare(expect=want_rc)
            self.assertEqual(v["outputs"][0]["tol"], tol, dtype)
        self.setup_pair(self.r.astype(np.float64), self.r.astype(np.float64) * (1 + 1e-8),
                        dtype="f64")
        rc, v, _ = self.compare(expect=1)
        self.assertEqual(v["outputs"][0]["tol"], 1e-9)
        self.setup_pair(self.r, self.noisy(3e-2), dtype="bf16")
        self.compare(expect=1)

    def test_tol_override(self):
        self.setup_pair(self.r, self.noisy(1e-2))
        rc, v, _ = self.compare("--tol", "0.05", expect=0)
        self.assertEqual(v["outputs"][0]["tol"], 0.05)
        self.setup_pair(self.r, self.noisy(1e-2), dtype="bf16")
        self.compare("--tol", "1e-3", expect=1)

    def test_tf32_loosens_f32_contractions_only(self):
        gemm = self.dir / "g.air"
        gemm.write_text("kernel k {\n  for i in 0..M { c[i] += a[i, k] * b[k]; }\n}\n")
        elementwise = self.dir / "e.air"
        elementwise.write_text("kernel k {\n  for i in 0..M { c[i] = a[i] * b[i]; }\n}\n")
        tf32_flags = {"ok": True, "flags": {"matmul_allow_tf32": False, "cudnn_allow_tf32": True}}
        a = self.noisy(5e-4)
        self.setup_pair(self.r, a, ref_json=tf32_flags, program=str(gemm))
        rc, v, _ = self.compare(expect=0)
        self.assertEqual(v["outputs"][0]["tol"], 1e-3)
        self.assertTrue(v["tf32"])
        self.setup_pair(self.r, a, ref_json=tf32_flags, program=str(elementwise))
        rc, v, _ = self.compare(expect=1)
        self.assertEqual(v["outputs"][0]["tol"], 1e-4)
        off = {"ok": True, "flags": {"matmul_allow_tf32": False, "cudnn_allow_tf32": False}}
        self.setup_pair(self.r, a, ref_json=off, program=str(gemm))
        self.compare(expect=1)
        # a kernel marked [math = tf32] does not: the AIR program computes in f32
        gemm.write_text("kernel k [math = tf32] {\n  for i in 0..M { c[i] += a[i, k] * b[k]; }\n}\n")
        self.setup_pair(self.r, a, ref_json=off, program=str(gemm))
        self.compare(expect=1)
        # without the AIR text, a contraction is assumed
        self.setup_pair(self.r, a, ref_json=tf32_flags, program="not-a-file.air")
        self.compare(expect=0)

    def test_several_outputs_and_inout(self):
        r2 = np.arange(6, dtype=np.float32)
        obj = {"program": "p", "params": {},
               "tensors": [t("x", "in", "f32", [6]), t("acc", "inout", "f32", [6]),
                           t("y", "out", "f32", [8, 4, 16]), t("tmp1", "tmp", "f32", [3])]}
        write_air(self.dir, obj)
        np.save(self.dir / "ref_acc.npy", r2)
        np.save(self.dir / "air_acc.npy", r2 + 1)
        np.save(self.dir / "ref_y.npy", self.r)
        np.save(self.dir / "air_y.npy", self.r)
        rc, v, _ = self.compare(expect=1)
        self.assertEqual([o["name"] for o in v["outputs"]], ["acc", "y"])
        self.assertEqual([o["pass"] for o in v["outputs"]], [False, True])

    def test_json_is_strict(self):
        a = self.r.copy()
        a[0, 0, 0] = np.nan
        self.setup_pair(self.r, a)
        rc, out, err = inproc(["compare", "--air", self.dir / "air.json", "--dir", self.dir])
        json.loads(out, parse_constant=lambda c: self.fail(f"non-JSON constant {c}"))


# ---------------------------------------------------------------------------------------------
# localise (the verdict on the files of a localising run, written here by hand)

class Localise(TempDir):
    """k0 writes tmp a (the original exposes it), k1 writes tmp b (not exposed) from a, k2
    writes out y from b."""

    def setup_run(self, a_ok=True, y_ok=True, tap_dtype="float32"):
        write_air(self.dir, {"program": "p", "params": {}, "contraction": False, "tensors": [
            t("x", "in", "f32", [4]), t("a", "tmp", "f32", [4]), t("b", "tmp", "f32", [4]),
            t("y", "out", "f32", [4])]})
        ref = np.arange(1, 5, dtype=np.float32)
        np.save(self.dir / "tap_a.npy", ref)
        np.save(self.dir / "loc_a.npy", ref if a_ok else ref + np.float32(0.5) * (ref == 3))
        np.save(self.dir / "ref_y.npy", ref)
        np.save(self.dir / "loc_y.npy", ref if y_ok else -ref)
        (self.dir / "ref.json").write_text(json.dumps({"ok": True, "flags": {}, "taps": [
            {"tensor": "a", "source": "the output of submodule 'a'", "dtype": tap_dtype}]}))
        ks = [("k0", ["x"], ["a"], ["a"]), ("k1", ["a"], ["b"], []), ("k2", ["b"], ["y"], ["y"])]
        (self.dir / "localise.json").write_text(json.dumps({"kernels": [
            {"name": n, "where": f"p.air:{i + 1}:1", "reads": r, "writes": w,
             "checks": [{"tensor": c, "air": f"loc_{c}.npy",
                         "ref": f"{'tap' if c == 'a' else 'ref'}_{c}.npy"} for c in cs]}
            for i, (n, r, w, cs) in enumerate(ks)]}))

    def localise(self):
        rc, out, err = inproc(["localise", "--air", self.dir / "air.json", "--dir", self.dir])
        self.assertEqual(rc, 0, err)
        return json.loads(out)

    def test_first_wrong_kernel_with_the_worst_element(self):
        self.setup_run(a_ok=False)
        v = self.localise()
        self.assertTrue(v["localised"])
        self.assertEqual((v["kernel"], v["where"], v["tensor"], v["suspects"]),
                         ("k0", "p.air:1:1", "a", ["k0"]))
        self.assertEqual(v["against"], "the output of submodule 'a'")
        self.assertEqual(v["worst"], {"index": [2], "air": 3.5, "reference": 3.0})
        self.assertEqual(v["also_wrong"], [])

    def test_an_unexposed_tmp_makes_its_writers_suspects(self):
        self.setup_run(y_ok=False)
        v = self.localise()
        self.assertEqual((v["kernel"], v["suspects"], v["unexposed"]), ("k2", ["k1", "k2"], ["b"]))

    def test_later_kernels_wrong_on_the_originals_values_are_listed(self):
        self.setup_run(a_ok=False, y_ok=False)
        v = self.localise()
        self.assertEqual((v["kernel"], v["also_wrong"]), ("k0", ["k2"]))

    def test_all_checks_pass_is_not_localised(self):
        self.setup_run()
        v = self.localise()
        self.assertFalse(v["localised"])
        self.assertEqual([c["pass"] for k in v["kernels"] for c in k["checks"]], [True, True])

    def test_a_narrower_tap_loosens_the_tolerance(self):
        self.setup_run(a_ok=False, tap_dtype="bfloat16")   # rel_l2 0.09 > 2e-2 still fails
        self.assertEqual(self.localise()["kernels"][0]["checks"][0]["tol"], 2e-2)


# ---------------------------------------------------------------------------------------------
# run: PyTorch models, binding

LINEAR = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

B, DIN, DOUT = 4, 64, 128


class Model(nn.Module):
    def __init__(self, din, dout):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dout, din))
        self.bias = nn.Parameter(torch.randn(dout))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


def get_inputs():
    return [torch.randn(B, DIN)]


def get_init_inputs():
    return [DIN, DOUT]
'''


def linear_air(b=4, din=64, dout=128, **over):
    ts = {"x": t("x", "in", "f32", [b, din]), "weight": t("weight", "in", "f32", [dout, din]),
          "bias": t("bias", "in", "f32", [dout]), "y": t("y", "out", "f32", [b, dout])}
    for k, v in over.items():
        ts[k].update(v)
    return {"program": "linear", "params": {"B": b, "DIN": din, "DOUT": dout},
            "tensors": list(ts.values())}


class Run(TempDir):
    def test_writes_inputs_references_and_ref_json(self):
        ref = self.model(LINEAR)
        self.run_ref(ref, linear_air())
        x = np.load(self.dir / "in_x.npy")
        w = np.load(self.dir / "in_weight.npy")
        b = np.load(self.dir / "in_bias.npy")
        y = np.load(self.dir / "ref_y.npy")
        self.assertEqual((x.shape, w.shape, b.shape, y.shape),
                         ((4, 64), (128, 64), (128,), (4, 128)))
        self.assertEqual({a.dtype for a in (x, w, b, y)}, {np.dtype(np.float32)})
        self.assertTrue(np.all(x != 0))
        np.testing.assert_allclose(y, x @ w.T + b, rtol=1e-5, atol=1e-5)
        self.assertFalse((self.dir / "air.json.tmp").exists())
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["ok"], True)
        self.assertIsNone(info["time_s"])
        self.assertIsNone(info["min_s"])
        self.assertEqual(info["device"], "cpu")
        self.assertEqual(info["torch"], torch.__version__)
        self.assertEqual(info["flags"], {"matmul_allow_tf32": False, "cudnn_allow_tf32": False})
        self.assertEqual(info["runs"], 0)
        self.assertEqual(info["params"], {"B": 4, "DIN": 64, "DOUT": 128})

    def test_float64_run(self):
        ref = self.model(LINEAR)
        self.run_ref(ref, linear_air())
        x = np.load(self.dir / "in_x.npy").astype(np.float64)
        w = np.load(self.dir / "in_weight.npy").astype(np.float64)
        b = np.load(self.dir / "in_bias.npy").astype(np.float64)
        y64 = np.load(self.dir / "ref64_y.npy")
        self.assertEqual(y64.dtype, np.float64)
        np.testing.assert_allclose(y64, x @ w.T + b, rtol=1e-12, atol=1e-12)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["float64"], {"written": ["y"], "not_written": {}})

    def test_decomposed_run_of_a_batch_norm(self):
        # a training-mode batch norm: the reference runs once more in f32 with PyTorch's
        # decomposition of native_batch_norm (ref.json's "decomposed"), a linear one does not
        ref = self.model(LINEAR.replace("return F.linear(x, self.weight, self.bias)",
                                        "return F.batch_norm(F.linear(x, self.weight, "
                                        "self.bias), None, None, training=True)"))
        self.run_ref(ref, linear_air())
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["decomposed"], {"ops": ["native_batch_norm"], "written": ["y"],
                                              "failed": None})
        y, dec = np.load(self.dir / "ref_y.npy"), np.load(self.dir / "refdec_y.npy")
        self.assertEqual(dec.dtype, np.float32)
        np.testing.assert_allclose(dec, y, rtol=1e-4, atol=1e-4)
        self.run_ref(self.model(LINEAR), linear_air())
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["decomposed"], {"ops": [], "written": [], "failed": None})
        self.assertFalse((self.dir / "refdec_y.npy").exists())   # removed as stale

    def test_float64_run_removes_stale_files(self):
        ref = self.model(LINEAR)
        np.save(self.dir / "air64_y.npy", np.zeros((4, 128)))   # from an earlier run in DIR
        np.save(self.dir / "ref64_old.npy", np.zeros(1))
        self.run_ref(ref, linear_air())
        self.assertFalse((self.dir / "air64_y.npy").exists())
        self.assertFalse((self.dir / "ref64_old.npy").exists())
        self.assertTrue((self.dir / "ref64_y.npy").exists())

    def test_float64_run_of_a_model_that_casts(self):
        ref = self.model(LINEAR.replace("return F.linear(x, self.weight, self.bias)",
                                        "return F.linear(x, self.weight, self.bias).float()"))
        self.run_ref(ref, linear_air())
        self.assertFalse((self.dir / "ref64_y.npy").exists())
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertIn("the float64 run gives it as float32", info["float64"]["not_written"]["y"])

    def test_seeded_and_reproducible(self):
        ref = self.model(LINEAR)
        self.run_ref(ref, linear_air())
        first = {n: np.load(self.dir / f"{n}.npy") for n in ("in_x", "in_weight", "ref_y")}
        torch.manual_seed(1234)   # whatever the state before, the harness seeds
        self.run_ref(ref, linear_air())
        for n, a in first.items():
            np.testing.assert_array_equal(a, np.load(self.dir / f"{n}.npy"), n)
        # the same values examples/measure.py and bench/soundness.py use: seed, model, inputs
        import importlib.util
        spec = importlib.util.spec_from_file_location("lin", ref)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        torch.manual_seed(0)
        m = mod.Model(*mod.get_init_inputs())
        x = mod.get_inputs()[0]
        np.testing.assert_array_equal(first["in_x"], x.numpy())
        np.testing.assert_array_equal(first["in_weight"], m.weight.detach().numpy())

    def test_params_and_defines_set_module_sizes(self):
        ref = self.model(LINEAR)
        air = linear_air(b=3, din=8, dout=5)
        self.run_ref(ref, air)
        self.assertEqual(np.load(self.dir / "ref_y.npy").shape, (3, 5))
        # -D wins over air.json (the C side passes both; here they disagree on purpose)
        air = linear_air(b=2, din=8, dout=5)
        air["params"]["B"] = 7
        self.run_ref(ref, air, "-D", "B=2")
        self.assertEqual(np.load(self.dir / "ref_y.npy").shape, (2, 5))
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["params"]["B"], 2)

    def test_params_never_clobber_module_names(self):
        """An AIR param named like the model's `F` (torch.nn.functional), a float, a class or
        a builtin is not set: a warning, ref.json's params_not_set, and the model still runs."""
        ref = self.model(LINEAR.replace("B, DIN, DOUT = 4, 64, 128",
                                        "B, DIN, DOUT = 4, 64, 128\nEPS = 1e-5\n"
                                        "FLAG = True\nN64 = __import__('numpy').int64(3)"))
        air = linear_air()
        air["params"].update(F=64, EPS=2, Model=1, FLAG=0, N64=5, max=7)
        err = self.run_ref(ref, air)
        self.assertIn("harness: warning: AIR param F = 64 is not set in the model: the model's "
                      "'F' is a module (torch.nn.functional), not an integer size constant", err)
        self.assertIn("'EPS' is a float (1e-05)", err)
        self.assertIn("'Model' is a class (Model)", err)
        self.assertIn("'FLAG' is a bool (True)", err)
        self.assertIn("setting it would hide Python's builtin max()", err)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(sorted(info["params_not_set"]), ["EPS", "F", "FLAG", "Model", "max"])
        self.assertNotIn("N64", info["params_not_set"])   # a numpy integer is a size constant
        np.testing.assert_allclose(np.load(self.dir / "ref_y.npy").shape, (4, 128))

    def test_define_must_name_a_size_constant_of_the_model(self):
        """-D N=V runs the original at N=V: a name the model does not define as an integer
        constant stops with one line (exit 2), not a shape mismatch or a traceback."""
        ref = self.model(LINEAR)
        air = linear_air()
        air["params"]["F"] = 64
        err = self.run_ref(ref, air, "-D", "F=64", expect=2)
        self.assert_one_line(err, "binding: -D F=64 cannot be applied to", "the model's 'F' is "
                             "a module (torch.nn.functional)", "sizes cannot follow it")
        air = linear_air()
        air["params"]["H"] = 8
        err = self.run_ref(ref, air, "-D", "H=8", expect=2)
        self.assert_one_line(err, "binding: -D H=8:", "has no module-level constant H",
                             "would disagree")
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertFalse(info["ok"])
        # a param the model lacks, not given with -D, is recorded, as before
        self.run_ref(ref, air)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["params_not_in_model"], ["H"])

    def test_taps_record_the_originals_intermediates(self):
        """AIR tmps named like a submodule (its one call's output) or a local of forward()
        (its value at return) get tap_<name>.npy; a submodule run twice or a shape that
        differs is skipped with the reason; a tmp named like nothing gets nothing."""
        ref = self.model('''
import torch
import torch.nn as nn

N = 5


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU()
        self.twice = nn.Tanh()
        self.fc = nn.Linear(N, N)

    def forward(self, x):
        a = self.act(x)
        h = self.fc(a)
        loc = self.twice(self.twice(h)) * 2
        loc.add_(1)            # in place after the assignment: the value at return counts
        return loc.sum(1)


def get_inputs():
    return [torch.randn(2, N)]
''')
        air = {"program": "p", "params": {"N": 5}, "tensors": [
            t("x", "in", "f32", [2, 5]), t("fc_weight", "in", "f32", [5, 5]),
            t("fc_bias", "in", "f32", [5]), t("act", "tmp", "f32", [2, 5]),
            t("twice", "tmp", "f32", [2, 5]), t("fc", "tmp", "f32", [5, 2]),
            t("loc", "tmp", "f32", [2, 5]), t("other", "tmp", "f32", [3]),
            t("y", "out", "f32", [2])]}
        self.run_ref(ref, air)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual([(x["tensor"], x["source"]) for x in info["taps"]],
                         [("act", "the output of submodule 'act'"),
                          ("loc", "forward()'s local variable 'loc'")])
        skipped = {x["tensor"]: x["reason"] for x in info["taps_skipped"]}
        self.assertEqual(skipped["twice"], "submodule 'twice' runs 2 times in forward()")
        self.assertIn("its shape [2, 5] differs from AIR tmp 'fc' [5, 2] f32", skipped["fc"])
        self.assertEqual(sorted(skipped), ["fc", "twice"])
        x = np.load(self.dir / "in_x.npy")
        np.testing.assert_array_equal(np.load(self.dir / "tap_act.npy"), np.maximum(x, 0))
        np.testing.assert_allclose(np.load(self.dir / "tap_loc.npy").sum(1),
                                   np.load(self.dir / "ref_y.npy"), rtol=1e-6)
        self.assertFalse((self.dir / "tap_other.npy").exists())
        self.assertFalse((self.dir / "tap_twice.npy").exists())

    def test_binding_error_names_both_sides(self):
        ref = self.model(LINEAR)
        air = linear_air(weight={"shape": [64, 128]})
        err = self.run_ref(ref, air, expect=2)
        self.assertEqual(self.assert_one_line(err),
                         "binding: AIR in 'weight' [64, 128] f32 <- parameter 'weight' "
                         "[128, 64] float32: shape differs")
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["ok"], False)
        self.assertIn("binding: AIR in 'weight'", info["error"])
        err = self.run_ref(ref, linear_air(weight={"shape": [64, 128], "dtype": "bf16"}),
                           expect=2)
        self.assert_one_line(err, "[128, 64] float32: shape and dtype differ")
        err = self.run_ref(ref, linear_air(x={"dtype": "bf16"}), expect=2)
        self.assert_one_line(err, "binding: AIR in 'x' [4, 64] bf16 <- forward argument 0 "
                                  "[4, 64] float32: dtype differs")
        err = self.run_ref(ref, linear_air(y={"shape": [128, 4]}), expect=2)
        self.assert_one_line(err, "binding: AIR out 'y' [128, 4] f32 <- forward output 0 "
                                  "[4, 128] float32: shape differs")

    def test_binding_missing_parameter(self):
        ref = self.model(LINEAR)
        air = linear_air()
        air["tensors"][2]["name"] = "b"
        err = self.run_ref(ref, air, expect=2)
        self.assert_one_line(err, "binding: AIR in 'b' [128] f32 <- nothing",
                             "no parameter or buffer 'b' (it has: bias, weight)")

    def test_binding_counts(self):
        ref = self.model(LINEAR)
        air = linear_air()
        air["tensors"].append(t("z", "out", "f32", [4, 128]))
        err = self.run_ref(ref, air, expect=2)
        self.assert_one_line(err, "the AIR declares 2 out tensors (y, z) but forward() "
                                  "returned 1 outputs")
        air = {"program": "p", "params": {}, "tensors": [t("y", "out", "f32", [4, 128])]}
        err = self.run_ref(ref, air, expect=2)
        self.assert_one_line(err, "forward() takes 1 inputs (get_inputs()) but the AIR "
                                  "declares 0 in/inout tensors")

    def test_unbound_parameter_warns(self):
        ref = self.model(LINEAR.replace("return F.linear(x, self.weight, self.bias)",
                                        "return F.linear(x, self.weight)"))
        air = linear_air()
        air["tensors"] = [x for x in air["tensors"] if x["name"] != "bias"]
        err = self.run_ref(ref, air)
        self.assertIn("harness: warning: binding: parameter 'bias' of the model binds to no "
                      "AIR tensor", err)

    def test_buffers_submodules_tuples_and_inout(self):
        ref = self.model('''
import torch
import torch.nn as nn

N = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N, N, bias=False)
        self.register_buffer("scale", torch.randn(N))
        self.register_buffer("count", torch.zeros(N, dtype=torch.int64) + 3)

    def forward(self, x, acc):
        self.count += 1            # inout buffer, updated in place
        acc.add_(x)                # inout forward argument
        h = self.fc1(x) * self.scale
        return h, h.sum(dim=1)


def get_inputs():
    return [torch.randn(2, N), torch.randn(2, N)]
''')
        air = {"program": "p", "params": {"N": 6}, "tensors": [
            t("x", "in", "f32", [2, 6]), t("acc", "inout", "f32", [2, 6]),
            t("fc1_weight", "in", "f32", [6, 6]), t("scale", "in", "f32", [6]),
            t("count", "inout", "i64", [6]),
            t("h", "out", "f32", [2, 6]), t("s", "out", "f32", [2])]}
        self.run_ref(ref, air)
        ld = lambda n: np.load(self.dir / f"{n}.npy")   # noqa: E731
        x, acc0, w, sc = ld("in_x"), ld("in_acc"), ld("in_fc1_weight"), ld("in_scale")
        np.testing.assert_array_equal(ld("in_count"), np.full(6, 3))
        np.testing.assert_array_equal(ld("ref_count"), np.full(6, 4))
        self.assertEqual(ld("ref_count").dtype, np.int64)
        np.testing.assert_allclose(ld("ref_acc"), acc0 + x, rtol=1e-6)
        h = (x @ w.T) * sc
        np.testing.assert_allclose(ld("ref_h"), h, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(ld("ref_s"), h.sum(1), rtol=1e-5, atol=1e-5)

    def test_bf16_files_are_exact_float32(self):
        ref = self.model(LINEAR.replace("torch.randn(B, DIN)", "torch.randn(B, DIN, dtype=torch.bfloat16)")
                         .replace("super().__init__()", "super().__init__()\n        torch.set_default_dtype(torch.float32)")
                         .replace("torch.randn(dout, din)", "torch.randn(dout, din, dtype=torch.bfloat16)")
                         .replace("torch.randn(dout))", "torch.randn(dout, dtype=torch.bfloat16))"))
        air = linear_air()
        for x in air["tensors"]:
            x["dtype"] = "bf16"
        self.run_ref(ref, air)
        for n in ("in_x", "in_weight", "ref_y"):
            a = np.load(self.dir / f"{n}.npy")
            self.assertEqual(a.dtype, np.float32, n)
            # exactly representable in bf16: the low 16 bits are zero
            self.assertTrue(np.all((a.view(np.uint32) & 0xFFFF) == 0), n)

    def test_model_errors_are_one_line(self):
        ref = self.model(LINEAR.replace("return F.linear(x, self.weight, self.bias)",
                                        "raise ValueError('bad\\nthings')"))
        err = self.run_ref(ref, linear_air(), expect=2)
        self.assert_one_line(err, "model: forward() raised ValueError: bad things")
        ref = self.model("import torch\nraise ImportError('no such thing')\n", "broken.py")
        err = self.run_ref(ref, linear_air(), expect=2)
        self.assert_one_line(err, "model: loading broken.py raised ImportError")
        ref = self.model("import torch\n", "empty.py")
        err = self.run_ref(ref, linear_air(), expect=2)
        self.assert_one_line(err, "neither class Model nor a module-level function")
        ref = self.model("import torch\nraise SystemExit(3)\n", "exits.py")
        err = self.run_ref(ref, linear_air(), expect=2)
        self.assert_one_line(err, "exits.py called sys.exit(3) instead of returning")
        ref = self.model(LINEAR.replace("def get_inputs():", "def make_inputs():"), "noin.py")
        err = self.run_ref(ref, linear_air(), expect=2)
        self.assert_one_line(err, "noin.py has no module-level get_inputs()")

    def test_zero_input_warns(self):
        ref = self.model(LINEAR.replace("torch.randn(B, DIN)", "torch.zeros(B, DIN)"))
        err = self.run_ref(ref, linear_air())
        self.assertIn("AIR in 'x' [4, 64] f32 is all zeros", err)

    def test_usage_errors(self):
        ref = self.model(LINEAR)
        write_air(self.dir, linear_air())
        for argv, needle in (
                (["run", "--ref", ref, "--air", self.dir / "air.json", "--dir", self.dir,
                  "-D", "B=x"], "-D B=x: expected NAME=INTEGER"),
                (["run", "--ref", self.dir / "nope.py", "--air", self.dir / "air.json",
                  "--dir", self.dir], "nope.py: no such file"),
                (["run", "--ref", ref, "--air", self.dir / "nope.json", "--dir", self.dir],
                 "cannot read"),
                (["run", "--ref", ref, "--air", self.dir / "air.json", "--dir", self.dir,
                  "--runs", "-1"], "--runs and --warmup"),
                (["compare", "--air", self.dir / "air.json", "--dir", self.dir, "--tol", "-1"],
                 "--tol takes a number"),
                (["frobnicate"], "usage:"),
                ([], "a command is needed"),
                (["run", "--ref", ref], "required")):
            rc, out, err = inproc(argv)
            self.assertEqual(rc, 2, argv)
            self.assert_one_line(err, needle)
        bad = self.dir / "bad.json"
        bad.write_text('{"tensors": [{"name": "x", "role": "sideways", "dtype": "f32", "shape": [1]}]}')
        rc, out, err = inproc(["run", "--ref", ref, "--air", bad, "--dir", self.dir])
        self.assertEqual(rc, 2)
        self.assert_one_line(err, "unknown role 'sideways'")

    def test_cuda(self):
        ref = self.model(LINEAR)
        air = write_air(self.dir, linear_air())
        rc, out, err = inproc(["run", "--ref", ref, "--air", air, "--dir", self.dir,
                               "--device", "cuda", "--runs", "5", "--warmup", "1"])
        if not torch.cuda.is_available():
            self.assertEqual(rc, 2)
            self.assert_one_line(err, "environment: --device cuda", "sees no CUDA device")
            return
        self.assertEqual(rc, 0, err)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertGreater(info["time_s"], 0)
        self.assertLessEqual(info["min_s"], info["time_s"])
        self.assertEqual(info["runs"], 5)
        self.assertEqual(info["flags"], {"matmul_allow_tf32": False, "cudnn_allow_tf32": True})


# ---------------------------------------------------------------------------------------------
# run: the function conventions (numpy; JAX where it imports)

NUMPY_MODEL = '''
import numpy as np

M, N = 4, 8


def forward(x, *, w):
    return np.tanh(x @ w)


def get_inputs():
    return [np.random.standard_normal((M, N)).astype(np.float32)]


def get_params():
    return {"w": np.random.standard_normal((N, N)).astype(np.float32)}
'''

JAX_MODEL = '''
import jax
import jax.numpy as jnp
import numpy as np

M, N = 4, 8


@jax.jit
def forward(x, w):
    return jnp.tanh(x @ w), jnp.sum(x, axis=1)


def get_inputs():
    return [np.random.standard_normal((M, N)).astype(np.float32)]


def get_params():
    k = jax.random.PRNGKey(0)
    return {"w": jax.random.normal(k, (N, N), dtype=jnp.bfloat16)}
'''


NUMPY_NORM = '''
import numpy as np

M, N = 4, 8
PARAMS = {"g": np.ones(N, np.float32), "b": np.zeros(N, np.float32), "s": np.full(N, 2.0)}


def forward(x, g, b, s):
    return x * g + b + s


def get_inputs():
    return [np.ones((M, N), np.float32)]


def get_params():
    return PARAMS
'''


class Functions(TempDir):
    def test_numpy_constant_params_drawn(self):
        """get_params() entries bound to AIR inputs whose elements are all equal are drawn at
        random (as PyTorch's parameters are): a missing gain or bias would pass on ones and
        zeros.  Forward arguments stay as get_inputs() made them; the model's dict is not
        changed; the reference runs with the drawn values."""
        ref = self.model(NUMPY_NORM)
        air = {"program": "p", "params": {"M": 4, "N": 8}, "tensors": [
            t("x", "in", "f32", [4, 8]), t("g", "in", "f32", [8]), t("b", "in", "f32", [8]),
            t("s", "in", "f64", [8]), t("y", "out", "f64", [4, 8])]}
        err = self.run_ref(ref, air)
        self.assertIn("drawn at random", err)
        for name in ("g (all 1)", "b (all 0)", "s (all 2)"):
            self.assertIn(f"get_params() entry '{name.split()[0]}' {name.split(' ', 1)[1]}", err)
        x = np.load(self.dir / "in_x.npy")
        g, b, sv = (np.load(self.dir / f"in_{n}.npy") for n in ("g", "b", "s"))
        self.assertTrue(np.all(x == 1), "a forward argument was drawn")
        self.assertEqual(len(set(g.tolist())), 8)
        self.assertTrue(np.all((g >= 0.5) & (g <= 1.5)) and np.all(np.abs(b) <= 0.5))
        self.assertTrue(np.all((sv >= 1.0) & (sv <= 3.0)) and sv.dtype == np.float64)
        np.testing.assert_allclose(np.load(self.dir / "ref_y.npy"), x * g + b + sv, rtol=1e-6)

    def test_numpy_model(self):
        ref = self.model(NUMPY_MODEL)
        air = {"program": "p", "params": {"M": 3, "N": 8}, "tensors": [
            t("x", "in", "f32", [3, 8]), t("w", "in", "f32", [8, 8]), t("y", "out", "f32", [3, 8])]}
        self.run_ref(ref, air)
        x, w = np.load(self.dir / "in_x.npy"), np.load(self.dir / "in_w.npy")
        np.testing.assert_allclose(np.load(self.dir / "ref_y.npy"), np.tanh(x @ w), rtol=1e-6)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["convention"], "numpy")
        self.assertIsNone(info["time_s"])
        shutil.copy(self.dir / "ref_y.npy", self.dir / "air_y.npy")
        self.compare(expect=0)
        air["tensors"][1]["name"] = "weights"
        err = self.run_ref(ref, air, expect=2)
        self.assert_one_line(err, "no get_params() entry 'weights' (it has: w)")

    def test_jax_model(self):
        ref = self.model(JAX_MODEL)
        air = {"program": "p", "params": {"M": 4, "N": 8}, "tensors": [
            t("x", "in", "f32", [4, 8]), t("w", "in", "bf16", [8, 8]),
            t("y", "out", "f32", [4, 8]), t("s", "out", "f32", [4])]}
        write_air(self.dir, air)
        argv = ["run", "--ref", ref, "--air", self.dir / "air.json", "--dir", self.dir,
                "--device", "cpu"]
        try:
            import jax  # noqa: F401
        except ImportError:
            jax = None
        if jax is None:   # this interpreter has no jax: the error must say so, in one line
            rc, out, err = command(argv, env={"SOLAR_PYTHON": sys.executable})
            self.assertEqual(rc, 2, err)
            self.assert_one_line(err, "environment: no Python with jax")
            return
        rc, out, err = inproc(argv)
        self.assertEqual(rc, 0, err)
        x, w = np.load(self.dir / "in_x.npy"), np.load(self.dir / "in_w.npy")
        self.assertEqual(w.dtype, np.float32)
        np.testing.assert_allclose(np.load(self.dir / "ref_y.npy"), np.tanh(x @ w), rtol=2e-2,
                                   atol=2e-2)
        np.testing.assert_allclose(np.load(self.dir / "ref_s.npy"), x.sum(1), rtol=1e-5)
        info = json.loads((self.dir / "ref.json").read_text())
        self.assertEqual(info["convention"], "jax")


# ---------------------------------------------------------------------------------------------
# the examples, at small sizes: they bind, and the reference agrees with numpy

SMALL = {
    "attention_causal": {"B": 1, "H": 2, "S": 16, "D": 64},
    "attention_full": {"B": 1, "H": 2, "S": 16, "D": 64},
    "bmm": {"B": 2, "M": 8, "N": 8, "K": 16},
    "conv2d_3x3": {"N": 2, "C": 4, "K": 8, "H": 8, "W": 8},
    "conv2d_7x7_s2": {"N": 1, "C": 3, "K": 4, "H": 16, "W": 16},
    "depthwise_conv": {"N": 2, "C": 4, "H": 8, "W": 8},
    "layernorm": {"B": 2, "S": 4, "D": 64},
    "linear_bias_gelu": {"B": 2, "S": 4, "DIN": 32, "DOUT": 48},
    "matmul_bf16": {"M": 16, "N": 8, "K": 32},
    "matmul_f32": {"M": 16, "N": 8, "K": 32},
    "maxpool2x2": {"N": 2, "C": 3, "H": 8, "W": 8},
    "mlp_block": {"B": 2, "S": 4, "D": 16},
    "rmsnorm": {"B": 2, "S": 4, "D": 64},
    "rowsum": {"M": 16, "N": 32},
    "softmax": {"B": 2, "S": 4, "V": 40},
    "embedding": {"B": 2, "S": 8, "V": 50, "D": 16},
    "cross_entropy": {"N": 8, "V": 50},
    "moe_layer": {"T": 8, "D": 16, "FF": 32, "E": 4},
}


def np_softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_gelu(h):
    return 0.5 * h * (1 + np.vectorize(math.erf)(h / math.sqrt(2)))


def np_conv(x, w, stride, pad, groups=1):
    n, c, hh, ww = x.shape
    k, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (hh + 2 * pad - kh) // stride + 1, (ww + 2 * pad - kw) // stride + 1
    y = np.zeros((n, k, oh, ow))
    for r in range(kh):
        for s in range(kw):
            patch = xp[:, :, r:r + stride * oh:stride, s:s + stride * ow:stride]
            if groups == 1:
                y += np.einsum("nchw,kc->nkhw", patch, w[:, :, r, s])
            else:
                y += patch * w[:, 0, r, s][None, :, None, None]
    return y


def np_reference(name, v):
    """Independent numpy (float64) versions of the examples, from the inputs the harness
    wrote."""
    if name in ("matmul_f32", "matmul_bf16", "bmm"):
        return {"c": np.matmul(v["a"], v["b"])}
    if name == "rowsum":
        return {"y": v["x"].sum(1)}
    if name == "softmax":
        return {"y": np_softmax(v["x"])}
    if name == "maxpool2x2":
        n, c, h, w = v["x"].shape
        return {"y": v["x"].reshape(n, c, h // 2, 2, w // 2, 2).max(axis=(3, 5))}
    if name == "rmsnorm":
        x = v["x"]
        return {"y": x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * v["weight"]}
    if name == "layernorm":
        x = v["x"]
        m = x.mean(-1, keepdims=True)
        var = ((x - m) ** 2).mean(-1, keepdims=True)
        return {"y": (x - m) / np.sqrt(var + 1e-5) * v["weight"] + v["bias"]}
    if name == "conv2d_3x3":
        return {"y": np_conv(v["x"], v["weight"], 1, 1)}
    if name == "conv2d_7x7_s2":
        return {"y": np_conv(v["x"], v["weight"], 2, 3)}
    if name == "depthwise_conv":
        return {"y": np_conv(v["x"], v["weight"], 1, 1, groups=v["x"].shape[1])}
    if name == "linear_bias_gelu":
        return {"y": np_gelu(v["x"] @ v["weight"].T + v["bias"])}
    if name == "mlp_block":
        g = np_gelu(v["x"] @ v["w1"].T + v["b1"])
        return {"y": g @ v["w2"].T + v["b2"]}
    if name.startswith("attention"):
        s = np.einsum("bhid,bhjd->bhij", v["q"], v["k"]) * v["q"].shape[-1] ** -0.5
        if name == "attention_causal":
            s = np.where(np.tril(np.ones(s.shape[-2:], bool)), s, -np.inf)
        return {"o": np_softmax(s) @ v["v"]}
    if name == "embedding":
        return {"y": v["weight"][v["ids"].astype(np.int64)]}
    if name == "cross_entropy":
        x, t = v["logits"], v["target"].astype(np.int64)
        m = x.max(1, keepdims=True)
        lse = np.log(np.exp(x - m).sum(1)) + m[:, 0]
        return {"loss": np.array((lse - x[np.arange(len(t)), t]).mean())}
    if name == "moe_layer":
        return {"y": np_moe(v)}
    raise KeyError(name)


def np_moe(v):
    """The Mixtral-style block in float64, routed on the router's logits rounded to bf16 as
    F.linear's are (near ties must route as the model does)."""
    x = v["x"]
    logits = torch.tensor(x @ v["gate"].T).to(torch.bfloat16).double().numpy()
    p = np_softmax(logits)
    top = np.argsort(-p, axis=1, kind="stable")[:, :2]
    y = np.zeros_like(x)
    for t in range(x.shape[0]):
        w = p[t, top[t]] / p[t, top[t]].sum()
        for k, e in enumerate(top[t]):
            h1, h3 = x[t] @ v["w1"][e].T, x[t] @ v["w3"][e].T
            y[t] += w[k] * ((h1 / (1 + np.exp(-h1)) * h3) @ v["w2"][e].T)
    return y


class TF32Flags(unittest.TestCase):
    """Which TF32 flags loosen a GPU validation (ref.json `flags`): cuDNN's default-on flag
    only when forward ran a convolution or a recurrent layer.  Before, it loosened every GPU
    validation with a contraction to 1e-3, so validate/bugs/deep_batchnorm_eps (24 linear
    layers, a wrong eps, rel_l2 7.9e-4) passed with --backend cuda on an H200."""
    DEFAULT = {"matmul_allow_tf32": False, "cudnn_allow_tf32": True}

    def test_linear_model_on_the_gpu_is_strict(self):
        ops = set()
        with torch.no_grad(), harness.op_recorder(torch, ops):
            nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU())(torch.randn(4, 8))
        self.assertIn("addmm", ops)
        self.assertEqual(harness.effective_tf32(self.DEFAULT, False, ops),
                         {"matmul_allow_tf32": False, "cudnn_allow_tf32": False})

    def test_convolution_and_rnn_keep_cudnns_flag(self):
        ops = set()
        with torch.no_grad(), harness.op_recorder(torch, ops):
            nn.Conv2d(3, 4, 3)(torch.randn(1, 3, 8, 8))
        self.assertTrue(harness.effective_tf32(self.DEFAULT, False, ops)["cudnn_allow_tf32"],
                        sorted(ops))
        # nn.LSTM on a GPU runs aten._cudnn_rnn (on the CPU it decomposes into its cells)
        for names in ({"_cudnn_rnn"}, {"lstm"}, {"gru"}, {"cudnn_convolution"}):
            self.assertTrue(harness.effective_tf32(self.DEFAULT, False, names)["cudnn_allow_tf32"])

    def test_unknown_operators_and_the_cpu(self):
        self.assertTrue(harness.effective_tf32(self.DEFAULT, False, None)["cudnn_allow_tf32"])
        self.assertTrue(harness.effective_tf32(self.DEFAULT, False, {"?"})["cudnn_allow_tf32"])
        on = {"matmul_allow_tf32": True, "cudnn_allow_tf32": True}
        self.assertEqual(harness.effective_tf32(on, True, {"convolution"}),
                         {"matmul_allow_tf32": False, "cudnn_allow_tf32": False})
        self.assertTrue(harness.effective_tf32(on, False, set())["matmul_allow_tf32"])


class Examples(TempDir):
    def test_every_example_has_sizes_here(self):
        have = sorted(p.stem for p in EXAMPLES.glob("*.air"))
        self.assertEqual(have, sorted(SMALL))

    def test_examples(self):
        for name, sizes in sorted(SMALL.items()):
            with self.subTest(example=name):
                d = self.dir / name
                d.mkdir()
                air = air_json_from_source(EXAMPLES / f"{name}.air", sizes)
                write_air(d, air)
                rc, out, err = inproc(["run", "--ref", EXAMPLES / f"{name}.py", "--air",
                                       d / "air.json", "--dir", d, "--device", "cpu"])
                self.assertEqual(rc, 0, err)
                self.assertNotIn("warning", err)
                info = json.loads((d / "ref.json").read_text())
                self.assertEqual(info["params_not_in_model"], [])
                v = {x["name"]: np.load(d / f"in_{x['name']}.npy").astype(np.float64)
                     for x in air["tensors"] if x["role"] in ("in", "inout")}
                for x in air["tensors"]:
                    if x["role"] in ("in", "inout"):
                        self.assertEqual(list(v[x["name"]].shape), x["shape"])
                        self.assertTrue(np.any(v[x["name"]] != 0))
                # the numpy version plays the AIR program's part in compare
                for oname, arr in np_reference(name, v).items():
                    np.save(d / f"air_{oname}.npy", arr.astype(np.float32))
                rc, out, err = inproc(["compare", "--air", d / "air.json", "--dir", d])
                self.assertEqual(rc, 0, out + err)

    def test_compat_shims_on_old_torch(self):
        d = self.dir
        write_air(d, air_json_from_source(EXAMPLES / "rmsnorm.air", SMALL["rmsnorm"]))
        self.run_ref(EXAMPLES / "rmsnorm.py", d / "air.json")
        info = json.loads((d / "ref.json").read_text())
        native = hasattr(torch.nn.functional, "rms_norm") and "F.rms_norm" not in \
            info["compat_installed"]
        self.assertEqual("F.rms_norm" in info["compat"], not native)
        write_air(d, air_json_from_source(EXAMPLES / "bmm.air", SMALL["bmm"]))
        self.run_ref(EXAMPLES / "bmm.py", d / "air.json")
        info = json.loads((d / "ref.json").read_text())
        # On the CPU every f16/bf16 contraction runs in f32 and rounds once, as cuBLAS does,
        # whether or not this PyTorch has a half-precision CPU kernel for it.
        self.assertIn("cpu-f32-accumulate:bmm", info["compat"])


# ---------------------------------------------------------------------------------------------
# the command itself: interpreter choice, exit status, one line

class Command(TempDir):
    def test_env(self):
        rc, out, err = command(["env"])
        self.assertEqual(rc, 0, err)
        info = json.loads(out)
        self.assertEqual(info["torch"], torch.__version__)
        self.assertTrue(os.path.samefile(info["python"], sys.executable))

    def test_solar_python(self):
        rc, out, err = command(["env"], env={"SOLAR_PYTHON": str(self.dir / "nope")})
        self.assertEqual(rc, 2)
        self.assert_one_line(err, "environment: SOLAR_PYTHON=", "is not an executable")
        fake = self.dir / "python-without-torch"
        fake.write_text(f"#!/bin/sh\nexport PYTHONPATH={self.dir}/empty\n"
                        f"exec {sys.executable} -S \"$@\"\n")
        fake.chmod(0o755)
        rc, out, err = command(["env"], env={"SOLAR_PYTHON": str(fake)})
        if rc == 0:   # this interpreter keeps torch outside site-packages: nothing to check
            return
        self.assertEqual(rc, 2)
        self.assert_one_line(err, "environment: no Python with")

    def test_end_to_end_with_planted_bugs(self):
        """run, then compare a correct, a wrong and a poisoned AIR result: 0, 1, 1."""
        write_air(self.dir, air_json_from_source(EXAMPLES / "softmax.air", SMALL["softmax"]))
        rc, out, err = command(["run", "--ref", EXAMPLES / "softmax.py", "--air",
                                self.dir / "air.json", "--dir", self.dir, "--device", "cpu"])
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        ref = np.load(self.dir / "ref_y.npy")
        argv = ["compare", "--air", self.dir / "air.json", "--dir", self.dir]
        np.save(self.dir / "air_y.npy", ref)
        rc, out, err = command(argv)
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(json.loads(out)["pass"])
        bad = ref.copy()
        bad[:, :, -1] = 0          # the last column never written: off by one in the v loop
        np.save(self.dir / "air_y.npy", bad)
        rc, out, err = command(argv)
        self.assertEqual(rc, 1)
        self.assertIn("within [0:2, 0:4, 39]", json.loads(out)["outputs"][0]["reason"])
        bad = ref.copy()
        bad[1, 2, 3] = np.nan
        np.save(self.dir / "air_y.npy", bad)
        rc, out, err = command(argv)
        self.assertEqual(rc, 1)
        self.assertIn("non-finite", json.loads(out)["outputs"][0]["reason"])

    def test_usage_is_one_line(self):
        rc, out, err = command(["run", "--ref", "x.py"])
        self.assertEqual(rc, 2)
        self.assert_one_line(err, "usage:", "required")
        rc, out, err = command([])
        self.assertEqual(rc, 2)
        self.assert_one_line(err, "a command is needed")


if __name__ == "__main__":
    unittest.main()
