"""The sizes solar translate validates at (translate/solar_translate/validate.py, pick) and the
bound on the validation's work (docs/translate.md, "Validation"):
  1. a tuple constant computed from a size (`bias_shape = (out_channels, 1, 1)`, KernelBench's
     level2 convention) follows the size: the bias is declared `bias[out_channels, 1, 1]` and
     the validation runs at small sizes (before, the bias kept 128 channels, no smaller size
     built the model, and KernelBench level2/1 was validated at its full size: 3 min 41 s);
  2. a chained assignment from a constant that is no size (`height = width = IMG`) shrinks
     through that constant (before, height and width were set back to IMG's full value);
  3. constants that can change only together (a depthwise convolution, groups=in_channels with
     out_channels == in_channels) are shrunk together (before: the full sizes);
  4. a relation between constants that no assignment states (a LayerNorm over D features where
     the tensor's last dimension is 2 * W, D == 2 * W) holds when every constant is divided by
     one power of two (before: no independent choice builds, the full sizes);
  5. a validation above --max-work statement executions is not run, and the result says
     "not validated: ..." with the count; a validation that runs states its count;
  6. when the first choice of sizes is above --max-work, the next is tried: sizes written as a
     list (`hidden_sizes = [512, 512]`) shrunk too (before: --max-work did not exist, and the
     list kept its sizes);
  7. when no other choice fits, the constants of the first are brought down to 2 one by one
     where the model builds: a batch of 10 becomes 2 before an input of literal 64 x 64
     (before: --max-work did not exist; a batch of 10 stays 10 at every target);
  8. the harness server forked from the translator (harness_server.py) listens, serves a
     `harness.py run` request (what solar validate sends), and ends with stop(); none is
     started when the caller gives one (SOLAR_HARNESS_SERVER).
    python3 tests/translate/test_shrink.py SOLAR      (exit 77: no torch here)
"""
import contextlib
import io
import os
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "translate"))
try:
    from solar_translate import cli, validate   # the frontend imports torch when it runs
    from solar_translate.translate import translate_file
    import torch  # noqa: F401
except ImportError as e:
    sys.exit(print(f"skipped: {e} (run on build/venv)") or 77)

CONV_BIAS = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.bias


batch_size = 16
in_channels = 16
out_channels = 32
height = width = 32
kernel_size = 3
bias_shape = (out_channels, 1, 1)


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, width)]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, bias_shape]
'''

CHAINED = '''
import torch
import torch.nn as nn

IMG = 64
height = width = IMG
channels = 16


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.avg_pool2d(x, 2)


def get_inputs():
    return [torch.rand(2, channels, height, width)]
'''

DEPTHWISE = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, groups=in_channels, bias=False)

    def forward(self, x):
        return self.conv(x)


batch_size = 4
in_channels = 64
out_channels = 64
height = 40


def get_inputs():
    return [torch.rand(batch_size, in_channels, height, height)]


def get_init_inputs():
    return [in_channels, out_channels]
'''

COUPLED = '''
import torch
import torch.nn as nn

B, C, W, D = 16, 16, 32, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(D)

    def forward(self, x):
        return self.norm(x.repeat(1, 1, 2))


def get_inputs():
    return [torch.rand(B, C, W)]
'''

MLP = '''
import torch
import torch.nn as nn

batch_size, input_size, output_size = 16, 64, 64
hidden_sizes = [512, 512]


class Model(nn.Module):
    def __init__(self, input_size, hidden_sizes, output_size):
        super().__init__()
        dims = [input_size] + hidden_sizes + [output_size]
        self.layers = nn.Sequential(*[nn.Linear(a, b) for a, b in zip(dims, dims[1:])])

    def forward(self, x):
        return self.layers(x)


def get_inputs():
    return [torch.rand(batch_size, input_size)]


def get_init_inputs():
    return [input_size, hidden_sizes, output_size]
'''

LITERAL_IMAGE = '''
import torch
import torch.nn as nn

batch_size = 10
blocks = [2, 10]    # a list of counts, not sizes (ResNet's layers = [3, 4, 23, 3])


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, 16, 3), *[nn.ReLU() for _ in range(sum(blocks))])

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(batch_size, 3, 64, 64)]
'''


class Shrink(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="solar-shrink-test-")

    def tearDown(self):
        self.dir.cleanup()

    def model(self, name, text):
        p = os.path.join(self.dir.name, name + ".py")
        with open(p, "w") as f:
            f.write(text)
        return p

    def sizes(self, name, text):
        p = self.model(name, text)
        res = translate_file(p, {})
        return res, validate.pick_sizes(res, p)

    def test_tuple_constant_follows(self):
        res, small = self.sizes("conv_bias", CONV_BIAS)
        self.assertIn("in  bias[out_channels, 1, 1]: f32;", res.text)
        self.assertEqual(small, {"batch_size": 8, "in_channels": 8, "height": 8, "width": 8,
                                 "out_channels": 8, "kernel_size": 3, "bias_shape": (8, 1, 1)})

    def test_chained_assignment_shrinks_through_its_source(self):
        _, small = self.sizes("chained", CHAINED)
        self.assertEqual((small.get("height"), small.get("width"), small.get("channels")), (8, 8, 8))

    def test_sizes_that_change_only_together(self):
        _, small = self.sizes("depthwise", DEPTHWISE)
        self.assertEqual((small.get("in_channels"), small.get("out_channels"), small.get("height")),
                         (8, 8, 10))

    def test_relation_holds_at_a_common_quotient(self):
        _, small = self.sizes("coupled", COUPLED)
        self.assertEqual(small, {"W": 8, "D": 16})

    def test_constants_down_to_two(self):
        rc, out, err = self.translate("--max-work", "5000000", name="image", text=LITERAL_IMAGE)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("image.air: validated: PASS (solar validate --backend cpu at batch_size=2 blocks=[2, 2]; ", out)

    def test_harness_server(self):
        import time
        from solar_translate import harness_server
        server = harness_server.start(os.environ.get("SOLAR_EXE"))
        self.assertIsNotNone(server)
        sock, pid = server
        try:
            for _ in range(100):
                if os.path.exists(sock):
                    break
                time.sleep(0.1)
            self.assertTrue(os.path.exists(sock))
            # a request with bad arguments, as harness.py's client sends it: served (not None:
            # the client would run it itself), the server's child parses them: exit 2
            import importlib.util
            path = harness_server.harness_path(os.environ.get("SOLAR_EXE"))
            spec = importlib.util.spec_from_file_location("_test_harness_client", path)
            client = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(client)
            argv, sys.argv = sys.argv, [path, "run", "--ref", "nothing.py", "--air", "nothing.json"]
            try:
                with open(os.devnull, "w") as null, contextlib.redirect_stderr(null):
                    self.assertEqual(client.serve_client(sock), 2)
            finally:
                sys.argv = argv
        finally:
            harness_server.stop(server)
        self.assertFalse(os.path.exists(os.path.dirname(sock)))
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)
        os.environ["SOLAR_HARNESS_SERVER"] = "/nonexistent/sock"
        try:
            self.assertIsNone(harness_server.start(os.environ.get("SOLAR_EXE")))
        finally:
            del os.environ["SOLAR_HARNESS_SERVER"]

    def test_loop_work_estimate(self):
        # the first nest 4 * 6; the second (its header on two lines) 4 * 3 (i = 0, 2, 4) * 3
        # (j in 0..i + 1 at i's middle value, 2), once for each branch of the `if`
        text = ("param N = 4;\nconst S = 6;\nkernel k {\n  for b in 0..N, i in 0..S {\n"
                "    y[b, i] = 0;\n  }\n  for b in 0..N, i in 0..S step 2,\n      j in 0..i + 1 {\n"
                "    if j % 2 == 0 {\n      y[b, i] += x[b, j];\n    } else {\n"
                "      y[b, i] += 1;\n    }\n  }\n}\n")
        self.assertEqual(validate.loop_work(text), 4 * 6 + 2 * (4 * 3 * 3))

    def translate(self, *flags, name="conv_bias", text=CONV_BIAS):
        p = self.model(name, text)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = cli.main([p, "-o", os.path.join(self.dir.name, name + ".air"), *flags])
        return rc, out.getvalue(), err.getvalue()

    def test_work_too_much_tries_the_next_choice(self):
        rc, out, err = self.translate("--max-work", "100000", name="mlp", text=MLP)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("mlp.air: validated: PASS (solar validate --backend cpu at batch_size=8 "
                      "input_size=8 output_size=8 hidden_sizes=[8, 8]", out)

    def test_work_bound_skips_and_says_so(self):
        rc, out, err = self.translate("--max-work", "1000")
        self.assertEqual(rc, 0, err)
        self.assertNotIn("PASS", out)
        self.assertIn("conv_bias.air: not validated: at the validation sizes (batch_size=8 "
                      "in_channels=8 height=8 width=8 out_channels=8 kernel_size=3 "
                      "bias_shape=(8, 1, 1)) the generated C would run about 175 k statement "
                      "executions, above the limit of 1 k (--max-work)", out)

    def test_backend_cuda_has_its_own_work_limit(self):
        # --backend cuda validates on the GPU, whose limit is MAX_WORK_CUDA (VGG19's step at
        # its own sizes, 590 G, is above the C backend's 8 G and inside it); --max-work still
        # overrides it; a word other than cpu or cuda is a usage error, exit 2
        saved = validate.MAX_WORK_CUDA
        validate.MAX_WORK_CUDA = 1000
        try:
            rc, out, err = self.translate("--backend", "cuda")
        finally:
            validate.MAX_WORK_CUDA = saved
        self.assertEqual(rc, 0, err)
        self.assertIn("above the limit of 1 k (--max-work)", out)
        self.assertGreater(validate.MAX_WORK_CUDA, 590 * 10 ** 9)
        rc, out, err = self.translate("--backend", "cuda", "--max-work", "2000")
        self.assertIn("above the limit of 2 k (--max-work)", out)
        rc, out, err = self.translate("--backend", "gpu")
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--backend expects cpu or cuda, not 'gpu'", err)

    def test_max_work_in_exponent_form(self):
        # the docs write the default as 8e9: the option takes that form too (before: exit 2,
        # "expects a count ... not '1e3'"); a fraction, zero or a word is refused, exit 2
        rc, out, err = self.translate("--max-work", "1e3")
        self.assertEqual(rc, 0, err)
        self.assertIn("above the limit of 1 k (--max-work)", out)
        for bad in ("2.5", "0", "1e-3", "lots", "1e40"):
            rc, out, err = self.translate("--max-work", bad)
            self.assertEqual(rc, 2, bad + out + err)
            self.assertIn(f"--max-work expects a count of statement executions (a positive "
                          f"integer: 8000000000 or 8e9), not '{bad}'", err)

    def test_parse_reads_words_as_solar_does(self):
        # solar's parser (cli/args.c) passes translate's words on as given: --name=value and a
        # "--" before the model must mean to run.py what they meant to solar (both were
        # "unknown option" here before)
        o = cli.parse(["--timeout=5", "-o", "x.air", "--", "-odd.py"])
        self.assertEqual((o["timeout"], o["out"], o["model"]), (5.0, "x.air", "-odd.py"))
        with self.assertRaises(cli.Usage):
            cli.parse(["--", "a.py", "b.py"])

    def test_validation_states_its_work(self):
        rc, out, err = self.translate()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("validated: PASS (solar validate --backend cpu at batch_size=8 "
                      "in_channels=8 height=8 width=8 out_channels=8 kernel_size=3 "
                      "bias_shape=(8, 1, 1): the same program as", out)
        self.assertIn("; about 175 k statement executions)", out)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        os.environ["SOLAR_EXE"] = os.path.abspath(sys.argv.pop(1))
    unittest.main()
