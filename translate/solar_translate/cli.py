"""`solar translate MODEL.py [-o OUT.air] [--no-validate] [-D NAME=V ...] [--keep DIR]`, or
`solar translate --hf CONFIG.json [--batch B] [--seq S] [--decode [--context T]] [--layers N]`.

Exit status: 0 translated (and validated); 1 the model cannot be translated (an unsupported
operator, a tracer error, an error in the file) or the translation failed validation (the
files are kept); 2 usage or environment (no PyTorch, no solar executable).  Every error is one
located line, `MODEL.py:LINE: error: MESSAGE`, never a traceback.
"""
import errno
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import limits

USAGE = ("usage: solar translate MODEL.py [-o OUT.air] [--no-validate] [-D NAME=VALUE ...]\n"
         "                       [--keep DIR] [--timeout SECONDS] [--max-work N] [--jax]\n"
         "                       [--backend cpu|cuda]\n"
         "                       [--llm CMD [--attempts N] [--log FILE.jsonl]]\n"
         "                       [--train [--loss sum|output] [--optimizer none|sgd|adamw]]\n"
         "       solar translate --hf CONFIG.json [--batch B] [--seq S] [--decode [--context T]]\n"
         "                       [--layers N] [-o OUT.air] [options as above]\n")

# --hf's counts: (key, lowest, highest, the error's words), as cli/commands.c's table
COUNTS = {"--batch": ("batch", 1, 1 << 20, "a count of sequences from 1 to 1048576"),
          "--seq": ("seq", 1, 1 << 24, "a count of tokens from 1 to 16777216"),
          "--context": ("context", 1, 1 << 24, "a count of tokens from 1 to 16777216"),
          "--layers": ("layers", 1, 100000, "a count of layers from 1 to 100000")}


class Usage(Exception):
    pass


def parse(argv):
    # --name=value is --name value, as solar's own parser reads it (cli/args.c)
    argv = [w for a in argv for w in (a.split("=", 1) if a.startswith("--") and "=" in a else [a])]
    o = {"model": None, "out": None, "validate": True, "defines": {}, "keep": None,
         "timeout": 600.0, "max_work": None, "jax": False, "llm": None, "attempts": 3, "log": None,
         "hf": None, "batch": 1, "seq": None, "decode": False, "context": None, "layers": None,
         "train": False, "loss": None, "optimizer": None, "backend": None}
    i = 0
    while i < len(argv):
        a = argv[i]
        val = argv[i + 1] if i + 1 < len(argv) else None

        def need():
            if val is None:
                raise Usage(f"option '{a}' needs a value")
        if a == "--":  # the rest are files, as solar's own parser reads them
            rest = argv[i + 1:]
            if len(rest) + (o["model"] is not None) > 1:
                raise Usage("translate takes one MODEL.py")
            o["model"] = o["model"] if not rest else rest[0]
            break
        if a in ("-h", "--help"):
            sys.stdout.write(USAGE)
            sys.exit(0)
        elif a == "-o":
            need(); o["out"] = val; i += 1
        elif a == "--no-validate":
            o["validate"] = False
        elif a == "--jax":
            o["jax"] = True
        elif a == "--decode":
            o["decode"] = True
        elif a == "--train":
            o["train"] = True
        elif a in ("--loss", "--optimizer"):
            need()
            from .train import LOSSES, OPTIMIZERS
            words = LOSSES if a == "--loss" else OPTIMIZERS
            if val not in words:
                raise Usage(f"{a} expects {', '.join(words[:-1])} or {words[-1]}, not '{val}'")
            o[a[2:]] = val; i += 1
        elif a == "--backend":
            need()
            if val not in ("cpu", "cuda"):
                raise Usage(f"--backend expects cpu or cuda, not '{val}'")
            o["backend"] = val; i += 1
        elif a == "--hf":
            need(); o["hf"] = val; i += 1
        elif a in COUNTS:
            need()
            key, lo, hi, words = COUNTS[a]
            if not re.fullmatch(r"[0-9]{1,9}", val) or not lo <= int(val) <= hi:
                raise Usage(f"{a} expects {words}, not '{val}'")
            o[key] = int(val); i += 1
        elif a in ("--llm", "--log"):
            need(); o[a[2:]] = val; i += 1
        elif a == "--attempts":
            need()
            if not re.fullmatch(r"[1-9]\d{0,2}", val):
                raise Usage(f"--attempts expects a count from 1 to 999, not '{val}'")
            o["attempts"] = int(val); i += 1
        elif a == "--keep":
            need(); o["keep"] = val; i += 1
        elif a == "--timeout":
            need()
            try:
                o["timeout"] = float(val)
            except ValueError:
                raise Usage(f"--timeout expects a number of seconds, not '{val}'")
            i += 1
        elif a == "--max-work":
            need()
            # a positive integer, digits or in exponent form as the docs write it (8e9)
            m = re.fullmatch(r"([1-9]\d{0,17})|([1-9](?:\.\d{1,17})?)[eE]\+?(\d{1,2})", val)
            n = int(val) if m and m.group(1) else \
                int(float(val)) if m and float(val).is_integer() and float(val) < 1e18 else None
            if not n:
                raise Usage(f"--max-work expects a count of statement executions (a positive "
                            f"integer: 8000000000 or 8e9), not '{val}'")
            o["max_work"] = n; i += 1
        elif a.startswith("-D"):
            d = a[2:]
            if not d:
                need(); d = val; i += 1
            m = re.fullmatch(r"([A-Za-z_]\w*)=(-?\d+)", d)
            if not m:
                raise Usage(f"-D expects NAME=INTEGER, not '{d}'")
            o["defines"][m.group(1)] = int(m.group(2))
        elif a.startswith("-") and a != "-":
            raise Usage(f"unknown option '{a}'")
        else:
            if o["model"] is not None:
                raise Usage("translate takes one MODEL.py")
            o["model"] = a
        i += 1
    train_only = [a for a in argv if a in ("--loss", "--optimizer")]
    if train_only and not o["train"]:
        raise Usage(f"{train_only[0]} goes with --train")
    if o["train"] and (o["jax"] or o["llm"] is not None):
        raise Usage(f"--train does not go with {'--jax' if o['jax'] else '--llm'}"
                    " (it translates a PyTorch MODEL.py's training step)")
    if o["train"] and o["hf"] is not None:
        if o["decode"]:
            raise Usage("--train does not go with --decode (a training step is a prefill of "
                        "every position)")
        if o["loss"] not in (None, "output"):
            raise Usage(f"--hf --train differentiates the model's next-token cross entropy "
                        f"(--loss output), not --loss {o['loss']}")
        o["loss"] = "output"
    o["train"] = {"loss": o["loss"] or "sum", "optimizer": o["optimizer"] or "none"} if o["train"] else None
    hf_only = [a for a in argv if a in COUNTS or a == "--decode"]
    if o["hf"] is not None:
        if o["model"] is not None:
            raise Usage("translate takes a MODEL.py or --hf CONFIG.json, not both")
        if o["jax"] or o["llm"] is not None:
            raise Usage(f"--hf does not go with {'--jax' if o['jax'] else '--llm'}")
        if o["context"] is not None and not o["decode"]:
            raise Usage("--context is the KV cache of a decode step: it needs --decode")
        if o["decode"] and o["seq"] not in (None, 1):
            # the new tokens would attend causally with the cache's offset (bottom-right),
            # which SDPA's is_causal (top-left) is not
            raise Usage(f"--decode takes one new token per sequence (--seq 1), not {o['seq']}: "
                        "several at once (speculative decoding) are not translated yet")
        return o
    if hf_only:
        raise Usage(f"{hf_only[0]} goes with --hf CONFIG.json")
    if o["model"] is None:
        raise Usage("translate needs a MODEL.py (or --hf CONFIG.json)")
    return o


def write_atomic(path, text):
    """Writes the whole of `text` to a temporary file in path's folder, then renames it into
    place: `path` is either the old file or the complete new one, never a part (as the C
    commands' cli/output.c does)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~current_umask())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def say(path, line, sev, msg):
    loc = f"{path}:{line}" if line else path
    sys.stderr.write(f"{loc}: {sev}: {msg}\n")


def torch_available():
    try:
        import torch  # noqa: F401
        import sympy  # noqa: F401
    except Exception as e:  # noqa: BLE001
        sys.stderr.write(f"solar translate: error: PyTorch is not available to {sys.executable} "
                         f"({type(e).__name__}: {e}); run `make venv` (build/venv) or set "
                         "SOLAR_PYTHON to a Python with torch >= 2.4\n")
        return False
    if not hasattr(torch, "export"):
        sys.stderr.write(f"solar translate: error: PyTorch {torch.__version__} at {sys.executable} "
                         "has no torch.export; run `make venv` or set SOLAR_PYTHON\n")
        return False
    return True


LAST = []   # the last translation of main() (for batch())


def batch(listing, outdir):
    """`run.py --batch-list LIST OUTDIR` (hidden; the test driver's, tests/translate/run.sh): one
    process translates many files, so PyTorch is imported once, not once per file.  Each line of
    LIST is `NAME DIR FILE`: in folder DIR, `solar translate FILE --no-validate -o
    OUTDIR/NAME.air` runs exactly as a single command would (the same main()), and its exit
    status, stdout and stderr go to OUTDIR/NAME.rc, NAME.out and NAME.err (NAME.rc last, so a
    NAME.rc means the case is complete).  A fourth word `validate` on the line also writes the
    files of the validation that a single command would run, OUTDIR/NAME.v/validate.air (the
    translation at validate.pick_sizes()'s sizes) and model.py (the model at those sizes), and
    the sizes in NAME.v/how.  Exit 0 when every case ran (whatever its status)."""
    import contextlib
    import io
    os.makedirs(outdir, exist_ok=True)
    outdir = os.path.abspath(outdir)
    home = os.getcwd()
    with open(listing) as f:
        cases = [ln.split() for ln in f if ln.strip() and not ln.startswith("#")]
    for name, folder, model, *flags in cases:
        base = os.path.join(outdir, name)
        shutil.rmtree(base + ".v", ignore_errors=True)
        for ext in (".air", ".rc", ".out", ".err"):
            if os.path.exists(base + ext):
                os.remove(base + ext)
        out, err = io.StringIO(), io.StringIO()
        limits.new_step()   # each case under the limits of a single translation
        t0 = time.process_time()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                LAST[:] = []
                try:
                    rc = main([model, "--no-validate", "-o", base + ".air"])
                    if rc == 0 and "validate" in flags:
                        rc = batch_validation(os.path.abspath(model), base, LAST[0])
                except SystemExit as e:
                    rc = e.code if isinstance(e.code, int) else 1
        finally:
            os.chdir(home)
        cpu = time.process_time() - t0
        with open(base + ".out", "w") as f:
            f.write(out.getvalue())
        with open(base + ".err", "w") as f:
            f.write(err.getvalue())
        with open(base + ".rc.tmp", "w") as f:
            f.write(f"{rc} {cpu:.2f}\n")
        os.replace(base + ".rc.tmp", base + ".rc")
    return 0


def batch_validation(path, base, res):
    from . import validate
    from .opgraph import TranslateError
    os.makedirs(base + ".v")
    try:
        _, _, how = validate.prepare(path, base + ".air", res, base + ".v")
    except TranslateError as e:
        say(path, e.line, "error", e.message)
        return 1
    with open(os.path.join(base + ".v", "how"), "w") as f:
        f.write(how + "\n")
    return 0


def main(argv):
    if argv[:1] == ["--batch-list"]:
        if len(argv) != 3:
            sys.stderr.write("solar translate: --batch-list takes LIST OUTDIR\n")
            return 2
        return batch(argv[1], argv[2])
    try:
        o = parse(argv)
    except Usage as e:
        sys.stderr.write(f"solar translate: {e}\n{USAGE}")
        return 2
    if o["hf"] is not None:
        return main_hf(o)
    path = o["model"]
    if not os.path.isfile(path):
        say(path, None, "error", "no such file")
        return 2
    return main_model(o, path, o["out"] or re.sub(r"\.py$", "", path) + ".air")


def writable(out):
    """Whether OUT's folder can take it; else says why."""
    folder = os.path.dirname(os.path.abspath(out))
    if os.access(folder, os.W_OK | os.X_OK):
        return True
    say(out, None, "error", f"cannot write: {os.strerror(errno.EACCES if os.path.isdir(folder) else errno.ENOENT)}")
    return False


def main_hf(o):
    """--hf CONFIG.json: the generated model file (hf.py) translated and validated as any
    other; it is written beside OUT.air as OUT.py (the reference that validated it, and what
    `solar validate OUT.air --ref OUT.py` runs)."""
    from . import hf
    cfg = o["hf"]
    if not os.path.isfile(cfg):
        say(cfg, None, "error", "no such file")
        return 2
    try:
        src = hf.generate(cfg, o, warn=lambda m: say(cfg, None, "warning", m))
    except hf.ConfigError as e:
        where = e.where
        if where and where[0].isdigit():
            say(f"{cfg}:{where}", None, "error", e.message)
        else:
            say(cfg, None, "error", f"{where}: {e.message}" if where else e.message)
        return 1
    out = o["out"] or re.sub(r"\.json$", "", cfg) + (".decode" if o["decode"] else "") + ".air"
    model = re.sub(r"\.air$", "", out) + ".py"
    if os.path.exists(model) and os.path.samefile(model, cfg):
        say(out, None, "error", "the generated model file would overwrite the config")
        return 2
    if not writable(out):   # before the model file is written beside it
        return 2
    try:
        write_atomic(model, src)
    except OSError as e:
        say(model, None, "error", f"cannot write: {e.strerror}")
        return 2
    print(f"{model}: the model of {cfg} (transformers, random weights)")
    return main_model(o, model, out)


def main_model(o, path, out):
    if os.path.exists(out) and os.path.samefile(out, path):
        say(out, None, "error", "-o names the model file itself; it would be overwritten")
        return 2
    if not writable(out):   # said now, not after the validation
        return 2
    if o["llm"] is not None:
        from . import llm
        return llm.main(o)
    if o["jax"]:
        from . import jax_frontend as translate
        if not translate.available():
            return 2
    elif not torch_available():
        return 2
    else:
        from . import translate
    solar = os.environ.get("SOLAR_EXE") or shutil.which("solar")
    if not solar:
        sys.stderr.write("solar translate: error: cannot find the solar executable (set SOLAR_EXE)\n")
        return 2
    server = None
    if o["validate"]:
        # the validation's harness, forked now (PyTorch or JAX imported, nothing traced yet:
        # no JAX backend started, which a fork must not copy), so that `solar validate` does
        # not import it once more (harness_server.py)
        from . import harness_server
        server = o["harness_server"] = harness_server.start(
            solar, ("jax", "jax.numpy") if o["jax"] else ("torch",))
    try:
        return translate_and_validate(o, path, out, translate, solar)
    finally:
        if server:
            harness_server.stop(server)


def translate_and_validate(o, path, out, translate, solar):
    from .opgraph import TranslateError
    t0 = time.time()
    try:
        res = translate.translate_file(path, o["defines"], **({"train": o["train"]} if o["train"] else {}))
    except TranslateError as e:
        say(path, e.line, "error", e.message)
        return e.status
    except RecursionError:
        say(path, None, "error", "the model is too deep to translate (recursion limit)")
        return 1
    except Exception as e:  # noqa: BLE001 - a bug in the translator: still one located line
        from .source import first_line, model_line
        say(path, model_line(e, path), "error", f"internal error in solar translate: {first_line(e)}")
        return 1
    t1 = time.time()
    LAST[:] = [res]
    # OUT is written once, at the end, whole (write_atomic): an interrupted run, or one
    # stopped by a time limit, leaves the old file as it was.  Until then the translation
    # is checked and validated as a draft in a folder of its own.
    draft_dir = tempfile.mkdtemp(prefix="solar-translate-")
    try:
        draft = os.path.join(draft_dir, os.path.basename(out))
        with open(draft, "w") as f:
            f.write(res.text)
        # ops that share a kernel (a foreach step's statements, train.py) count once
        nk = len({op.attrs.get("shared_kernel") or id(op) for op in res.graph.ops})
        print(f"{out}: {nk} kernels, {len(res.params)} params, {len(res.consts)} consts "
              f"(translated in {t1 - t0:.2f} s)")
        for n in res.graph.notes:   # what the header notes about the mode the model was traced in
            if "in training mode" in n:
                sys.stderr.write(f"{out}: {n}\n")
        rc = check_and_validate(o, solar, translate, path, out, draft, res)
    finally:
        shutil.rmtree(draft_dir, ignore_errors=True)
    try:
        write_atomic(out, res.text)   # validated, or kept as the messages above say
    except OSError as e:
        say(out, None, "error", f"cannot write: {e.strerror}")
        return 2
    return rc


def check_and_validate(o, solar, frontend, path, out, draft, res):
    """`solar check` and the validation of the draft of OUT; the exit status."""
    chk = subprocess.run([solar, "check", draft], capture_output=True, text=True)
    if chk.returncode != 0:
        sys.stderr.write(chk.stderr.replace(draft, out))
        say(out, None, "error", "the translation does not pass `solar check` (a bug in solar "
            "translate); the file is kept")
        return 1
    if not o["validate"]:
        print(f"{out}: not validated (--no-validate)")
        return 0
    from . import validate
    try:
        return (frontend if o["jax"] else validate).run(solar, path, out, res, o)
    except Exception as e:  # noqa: BLE001 - a bug in the validation: still one located line
        from .source import first_line, model_line
        say(path, model_line(e, path), "error", f"internal error in solar translate's validation: "
            f"{first_line(e)} ({out} is kept, not validated)")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
