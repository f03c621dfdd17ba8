"""`solar translate MODEL.py --llm 'CMD' [--attempts N] [--log FILE.jsonl]`: the LLM loop.

The exporter runs first (torch.export for a Model file, jax.make_jaxpr for a JAX fn file): when
it translates the whole model, that translation is the answer and CMD is not run.  When it
fails on some operator, the whole model goes to CMD with a note naming the operator and the
line that failed (splitting a model into an exported part and an LLM part is not done: the
parts would need a binding between them that neither side can check).

Each attempt sends CMD (run by /bin/sh) a prompt on stdin: the AIR digest
(translate/air_digest.md, written from docs/air.md), three example pairs (examples/X.py and
X.air), the model's source, the exporter's note, and for a retry the previous AIR with the
exact diagnostics of `solar check` or the output of the failed `solar validate`.  CMD's stdout
is the AIR (a ```air fence is stripped).  It is written to OUT, checked, and validated with
`solar validate --backend cpu` against the model at small sizes (-D: each param that is a
module-level constant of the model, shrunk by validate.shrink).  Every attempt is one JSON
line of the log.  Exit 0: an attempt validated; 1: every attempt failed (OUT holds the last
AIR, the log every attempt); 2: usage or environment.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import limits
from .limits import own_limits

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = ("rowsum", "softmax", "linear_bias_gelu")


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def examples_dir():
    for d in (os.path.join(HERE, "..", "examples"), os.environ.get("SOLAR_EXAMPLES", "")):
        if d and all(os.path.isfile(os.path.join(d, e + ".air")) for e in EXAMPLES):
            return d
    return None


def prompt(source_path, note, previous=None, feedback=None):
    parts = [read(os.path.join(HERE, "air_digest.md"))]
    ex = examples_dir()
    if ex:
        for e in EXAMPLES:
            parts.append(f"## Example: {e}.py\n```python\n{read(os.path.join(ex, e + '.py'))}```\n"
                         f"## Its AIR: {e}.air\n```air\n{read(os.path.join(ex, e + '.air'))}```")
    parts.append(f"## Translate this file: {os.path.basename(source_path)}\n```python\n"
                 f"{read(source_path)}```")
    if note:
        parts.append(f"## Note\n{note}")
    if previous is not None:
        parts.append(f"## Your previous answer\n```air\n{previous}```\n## What was wrong with it\n"
                     f"{feedback}\nAnswer with the whole corrected program.")
    return "\n\n".join(parts) + "\n"


def strip_fence(text):
    m = re.search(r"```(?:air)?\s*\n(.*?)```", text, re.S)
    return (m.group(1) if m else text).strip() + "\n"


def module_ints(path):
    """Module-level `NAME = <int>` assignments of the model file (read, not run)."""
    import ast
    out = {}
    try:
        tree = ast.parse(read(path))
    except SyntaxError:
        return out
    for n in tree.body:
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and isinstance(n.value, ast.Constant) and type(n.value.value) is int:
            out[n.targets[0].id] = n.value.value
    return out


def small_defines(path, air):
    from .validate import shrink
    ints = module_ints(path)
    names = []
    for decl in re.findall(r"^\s*param\s+([^;]*);", air, re.M):
        names += [item.split("=")[0].strip() for item in decl.split(",")]
    return {n: shrink(ints[n], 8) for n in names if n in ints}


def exporter(o, path):
    """(Result, None) when the exporter translates the file, else (None, the note for the LLM)."""
    from .opgraph import TranslateError
    jax_file = o["jax"] or (re.search(r"^\s*(import|from)\s+jax\b", read(path), re.M)
                            and not re.search(r"^class\s+Model\b", read(path), re.M))
    try:
        if jax_file:
            from . import jax_frontend as fe
        else:
            import torch  # noqa: F401
            from . import translate as fe
        return fe.translate_file(path, o["defines"]), None, jax_file
    except TranslateError as e:
        where = f"{os.path.basename(path)}:{e.line}" if e.line else os.path.basename(path)
        return None, (f"solar translate's exporter stopped at {where}: {e.message}. Translate the "
                      "whole file."), jax_file
    except Exception as e:  # noqa: BLE001 - no exporter (no torch/jax) or a bug in it
        return None, f"solar translate's exporter could not run ({type(e).__name__}: {e}).", jax_file


def main(o):
    """The loop; OUT is written once, at the end (cli.write_atomic): the exporter's validated
    translation, the attempt that validated, or the last AIR that came back.  Until then each
    attempt is checked and validated as a draft in a folder of its own, so an interrupted run
    leaves the old OUT as it was."""
    from .cli import write_atomic
    draft_dir = tempfile.mkdtemp(prefix="solar-translate-")
    try:
        o = dict(o, draft=os.path.join(draft_dir, "llm.air"))
        rc, text = loop(o)
    finally:
        shutil.rmtree(draft_dir, ignore_errors=True)
    if text:
        out = o["out"] or re.sub(r"\.py$", "", o["model"]) + ".air"
        try:
            write_atomic(out, text)
        except OSError as e:
            sys.stderr.write(f"{out}: error: cannot write: {e.strerror}\n")
            return 2
    return rc


def loop(o):
    """(exit status, the AIR to write to OUT or None)."""
    from .cli import say
    path = o["model"]
    out = o["out"] or re.sub(r"\.py$", "", path) + ".air"
    log_path = o["log"] or re.sub(r"\.air$", "", out) + ".llm.jsonl"
    solar = os.environ.get("SOLAR_EXE") or shutil.which("solar")
    if not solar:
        sys.stderr.write("solar translate: error: cannot find the solar executable (set SOLAR_EXE)\n")
        return 2, None
    res, note, jax_file = exporter(o, path)
    if res is not None:
        print(f"{out}: translated by the exporter ({len(res.graph.ops)} kernels); the LLM was not asked")
        if not o["validate"]:
            print(f"{out}: not validated (--no-validate)")
            return 0, res.text
        from . import jax_frontend, validate
        return (jax_frontend if jax_file else validate).run(solar, path, out, res, o), res.text
    print(f"{path}: {note}")
    try:
        log = open(log_path, "w")
    except OSError as e:
        say(log_path, None, "error", f"cannot write the log: {e.strerror}")
        return 2, None
    env = dict(os.environ, SOLAR_PYTHON=os.environ.get("SOLAR_PYTHON") or sys.executable)
    previous = feedback = last = None
    with log:
        for attempt in range(1, o["attempts"] + 1):
            t0 = time.time()
            text = prompt(path, note, previous, feedback)
            rec = {"attempt": attempt, "prompt_sha256": hashlib.sha256(text.encode()).hexdigest(),
                   "prompt_len": len(text)}
            try:
                with own_limits():   # the LLM command runs under --timeout
                    p = subprocess.run(o["llm"], shell=True, input=text, capture_output=True,
                                       text=True, timeout=o["timeout"])
                answer, rc, err = p.stdout, p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                answer, rc, err = "", None, f"timed out after {o['timeout']:g} s"
            rec["response"] = answer
            rec["llm_exit"] = rc
            air = strip_fence(answer) if answer.strip() else ""
            last = air or last
            verdict, feedback = check_and_validate(solar, path, out, air, o, env, rc, err, rec)
            rec["verdict"] = verdict
            rec["seconds"] = round(time.time() - t0, 3)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            print(f"{out}: attempt {attempt}/{o['attempts']}: {verdict}")
            if verdict in ("PASS", "checked (--no-validate)"):
                print(f"{out}: validated: PASS (attempt {attempt}; log {log_path})"
                      if verdict == "PASS" else f"{out}: not validated (--no-validate); log {log_path}")
                return 0, air
            previous = air
    sys.stderr.write(f"{out}: error: no attempt of {o['attempts']} validated; the last AIR is kept in "
                     f"{out}, every attempt in {log_path}\n")
    return 1, last


def check_and_validate(solar, path, out, air, o, env, rc, err, rec):
    """(verdict, feedback for the next prompt); fills rec's check and validation fields."""
    if rc != 0 or not air:
        rec["check"] = None
        why = f"the command exited {rc}" if rc else "the command printed nothing"
        return "no answer", f"No AIR came back ({why}; its stderr: {err.strip()[-2000:]})."
    draft = o["draft"]   # OUT's draft (main): its name is OUT's in what is said
    with open(draft, "w") as f:
        f.write(air)
    chk = subprocess.run([solar, "check", draft], capture_output=True, text=True)
    chk.stderr = chk.stderr.replace(draft, out)
    rec["check"] = {"exit": chk.returncode, "diagnostics": chk.stderr}
    if chk.returncode != 0:
        return "check failed", f"`solar check` reported (exit {chk.returncode}):\n{chk.stderr}"
    if not o["validate"]:
        rec["validation"] = None
        return "checked (--no-validate)", None
    defs = small_defines(path, air)
    cmd = [solar, "validate", draft, "--ref", path, "--backend", "cpu", "--timeout", str(o["timeout"])]
    for k, v in defs.items():
        cmd += ["-D", f"{k}={v}"]
    with own_limits():   # solar validate runs each step under --timeout
        p = limits.run(cmd, env=env)
    p.stdout, p.stderr = p.stdout.replace(draft, out), p.stderr.replace(draft, out)
    last = (p.stdout.strip().splitlines() or [""])[-1]
    rec["validation"] = {"exit": p.returncode, "defines": defs, "verdict": last,
                         "output": (p.stdout + p.stderr)[-4000:]}
    if p.returncode == 0:
        return "PASS", None
    sizes = " ".join(f"-D {k}={v}" for k, v in defs.items())
    return ("validation FAIL" if p.returncode == 1 else f"validation error (exit {p.returncode})",
            f"`solar validate --backend cpu {sizes}` against the model (exit {p.returncode}):\n"
            f"{(p.stdout + p.stderr)[-4000:]}")
