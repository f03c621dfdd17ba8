"""Census of the translation corpus: which ATen ops each model exports to, and does it run.

Run with /work/venv/bin/python (torch >= 2.5 for torch.export, jax for the jax/ files):

    /work/venv/bin/python tests/translate/census.py            # everything, writes COVERAGE.md
    /work/venv/bin/python tests/translate/census.py FILE...    # only these files, no COVERAGE.md
    census.py --defines MODEL.py FILE.air     # the -D list at which run.sh validates a translation

For every tests/translate/models/*.py:
  1. export: the file is executed as written, the model and its inputs are built on the meta
     device (no memory, so full KernelBench sizes are fine), torch.export.export traces it and
     run_decompositions() lowers it to core ATen; the ops of that graph are the file's ops;
  2. eager: the file is executed again with every module-level integer constant above 8 shrunk
     (see shrink()), the model runs on the CPU on real torch.randn inputs, and every floating
     output must be finite.
For every tests/translate/jax/*.py: jax.make_jaxpr(fn)(*get_inputs()) at full size (abstract
tracing only) gives the primitives; fn then runs at shrunk sizes and its outputs must be finite.

Writes tests/translate/COVERAGE.md and exits 1 if any file fails a step (the failures are listed
at the end of the report and on stderr).
"""
import ast
import math
import os
import re
import sys
import time
import traceback
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
BAD = os.path.join(HERE, "bad")
JAXDIR = os.path.join(HERE, "jax")
COVERAGE = os.path.join(HERE, "COVERAGE.md")
OPS_REFERENCE = "/work/shared/reference/torch-ops.md"

# Files whose eager run at shrunk sizes still takes too long on a small CPU are listed here
# (none so far; the 32-layer decoder shrinks to 8 small layers).
SKIP_EAGER = set()


def shrink(value):
    """The shrunk value of one size constant.

    Values up to 8 (kernel sizes, strides, groups, small head counts) stay; larger ones are
    divided by 16, but never below 8.  On powers of two this is monotone and maps powers of two to
    powers of two, so every divisibility the corpus relies on (DIM % HEADS, CHANNELS % GROUPS)
    survives.  A file may pin a value with a comment `# census: NAME=VALUE`.
    """
    if value <= 8:
        return value
    return max(8, value // 16)


def load_source(path, shrunk):
    """The file's module namespace, executed from source; with shrunk=True every module-level
    `NAME = <int literal>` (NAME in capitals) is rewritten by shrink() before execution, so
    constants derived from it (HEAD_DIM = DIM // HEADS) follow."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src, filename=path)
    pins = dict(re.findall(r"#\s*census:\s*([A-Z_][A-Z0-9_]*)=(\d+)", src))
    if shrunk:
        for node in tree.body:
            if (isinstance(node, ast.Assign) and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                    and node.targets[0].id.isupper()
                    and isinstance(node.value, ast.Constant)
                    and type(node.value.value) is int):
                name = node.targets[0].id
                new = int(pins[name]) if name in pins else shrink(node.value.value)
                node.value = ast.copy_location(ast.Constant(new), node.value)
    ns = {"__name__": "corpus_model", "__file__": path}
    exec(compile(tree, path, "exec"), ns)
    return ns


def aten_ops(graph_module):
    """The sorted distinct ATen overloads called in a graph, as 'name.overload'."""
    import torch
    ops = set()
    for node in graph_module.graph.nodes:
        if node.op == "call_function" and isinstance(node.target, torch._ops.OpOverload):
            name = node.target.name()          # 'aten::add.Tensor'
            ops.add(name.split("::", 1)[1] if name.startswith("aten::") else name)
    return sorted(ops)


def export_model(path):
    import torch
    import types
    ns = load_source(path, shrunk=False)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "translate"))
    # built and exported as solar translate does (meta, or for real when the constructor reads
    # a tensor's value; tensor attributes made buffers)
    from solar_translate.torch_frontend import build, meta_factories
    model, inputs = build(torch, types.SimpleNamespace(**ns), path)
    inputs = tuple(inputs)
    with meta_factories(torch):
        ep = torch.export.export(model, inputs)
    export_ops = aten_ops(ep.graph_module)
    core = ep.run_decompositions()
    return export_ops, aten_ops(core.graph_module)


def all_finite(out):
    import torch
    if isinstance(out, torch.Tensor):
        if out.is_floating_point() or out.is_complex():
            return bool(torch.isfinite(out).all())
        return True
    if isinstance(out, (tuple, list)):
        return all(all_finite(o) for o in out)
    return True


def eager_model(path):
    import torch
    ns = load_source(path, shrunk=True)
    torch.manual_seed(0)
    model = ns["Model"](*ns["get_init_inputs"]())
    inputs = ns["get_inputs"]()
    with torch.no_grad():
        out = model(*inputs)
        again = model(*inputs) if not model.training else None
    if not all_finite(out):
        raise ValueError("an output is not finite")
    if again is not None and not same(out, again):
        raise ValueError("two runs on the same inputs differ (randomness in forward?)")
    return shape_of(out)


def same(a, b):
    import torch
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return all(same(x, y) for x, y in zip(a, b))
    return a == b


def shape_of(out):
    if hasattr(out, "shape"):
        return "%s%s" % (str(out.dtype).replace("torch.", "").replace("jnp.", ""),
                         list(out.shape))
    if isinstance(out, (tuple, list)):
        return "(" + ", ".join(shape_of(o) for o in out) + ")"
    return type(out).__name__


def jax_primitives(jaxpr, acc):
    for eqn in jaxpr.eqns:
        acc.add(eqn.primitive.name)
        for sub in eqn.params.values():
            for j in (sub if isinstance(sub, (list, tuple)) else [sub]):
                inner = getattr(j, "jaxpr", None)
                if inner is not None and hasattr(inner, "eqns"):
                    jax_primitives(inner, acc)
                elif hasattr(j, "eqns"):
                    jax_primitives(j, acc)
    return acc


def trace_jax(path):
    import jax
    ns = load_source(path, shrunk=False)
    args = jax.eval_shape(lambda: list(ns["get_inputs"]()))   # shapes only: nothing allocated
    closed = jax.make_jaxpr(ns["fn"])(*args)
    return sorted(jax_primitives(closed.jaxpr, set()))


def eager_jax(path):
    import jax
    import numpy as np
    ns = load_source(path, shrunk=True)
    out = ns["fn"](*ns["get_inputs"]())
    leaves = jax.tree_util.tree_leaves(out)
    for leaf in leaves:
        if not np.all(np.isfinite(np.asarray(leaf, dtype=np.float64))):
            raise ValueError("an output is not finite")
    return ", ".join(shape_of(x) for x in leaves)


def failure(exc):
    """One line naming the exception and the deepest frame inside the corpus file."""
    tb = traceback.extract_tb(exc.__traceback__)
    where = ""
    for fr in tb:
        if fr.filename.startswith(HERE):
            where = " (%s:%d)" % (os.path.relpath(fr.filename, HERE), fr.lineno)
    msg = str(exc).strip().splitlines()
    return "%s: %s%s" % (type(exc).__name__, msg[0] if msg else "", where)


def bad_line(path):
    """Where plain Python and torch.export stop on a bad/ file: (what happened, line in the file).

    Compiles and runs the file, looks up Model / get_inputs / get_init_inputs (missing: line 1),
    builds the model and inputs at the file's sizes (real tensors: the bad files are small) and
    exports it.  A file that exports must call an op that AIR cannot express; its line is the
    stack trace of the first graph node calling sort, topk or nonzero."""
    import torch
    try:
        with open(path, "rb") as f:
            src = f.read()
        ns = {"__name__": "corpus_bad", "__file__": path}
        exec(compile(src, path, "exec"), ns)
        for name in ("Model", "get_inputs", "get_init_inputs"):
            if name not in ns:
                return "no %s" % name, 1
        model = ns["Model"](*ns["get_init_inputs"]())
        inputs = tuple(ns["get_inputs"]())
        ep = torch.export.export(model, inputs)
    except SyntaxError as exc:
        return "SyntaxError", exc.lineno
    except Exception as exc:  # noqa: BLE001 - the point is to see where it fails
        lines = [fr.lineno for fr in traceback.extract_tb(exc.__traceback__)
                 if fr.filename == path]
        if not lines and isinstance(exc, TypeError):   # a call with the wrong arguments
            lines = [forward_line(path)]
        return type(exc).__name__, lines[-1] if lines else None
    for node in ep.graph.nodes:
        target = str(node.target)
        if node.op == "call_function" and re.search(r"sort|topk|nonzero|dropout", target):
            trace = node.meta.get("stack_trace") or ""
            found = re.findall(r'File "%s", line (\d+)' % re.escape(path), trace)
            return "exports, calls %s" % target, int(found[-1]) if found else None
    return "exports cleanly", None


def forward_line(path):
    """The line of `def forward` in the file's class Model."""
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return item.lineno
    return None


def check_bad():
    """Each bad/NAME.expect ('EXIT FILE:LINE') against where Python and torch.export really stop.
    Returns rows (file, what happened, line found, line expected) and the failures."""
    import contextlib
    import io
    rows, failures = [], []
    for exp in sorted(f for f in os.listdir(BAD) if f.endswith(".expect")):
        want = open(os.path.join(BAD, exp)).read().split()
        fname, line = want[1].rsplit(":", 1)
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            what, got = bad_line(os.path.join(BAD, fname))
        rows.append((fname, what, got, int(line), want[0]))
        if got != int(line) or what.startswith("exports cleanly"):
            failures.append(("bad/" + fname, "expect",
                             "%s at line %s, %s says line %s" % (what, got, exp, line)))
    return rows, failures


def check_goldens():
    """Each golden/*.air's param defaults against the module constants of its `# ref:` model:
    a golden must describe the model at the model's own sizes.  Returns the failures."""
    failures = []
    gdir = os.path.join(HERE, "golden")
    for g in sorted(os.listdir(gdir)) if os.path.isdir(gdir) else []:
        if not g.endswith(".air"):
            continue
        text = open(os.path.join(gdir, g)).read()
        ref = re.search(r"^# ref: tests/translate/(\S+)", text, re.M)
        if not ref:
            failures.append(("golden/" + g, "golden", "no '# ref: tests/translate/...' line"))
            continue
        consts = {}
        for node in ast.parse(open(os.path.join(HERE, ref.group(1))).read()).body:
            if (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                    and isinstance(node.value, ast.Constant) and type(node.value.value) is int):
                consts[node.targets[0].id] = node.value.value
        for decl in re.findall(r"^param\s+([^;]*);", text, re.M):
            for name, value in re.findall(r"([A-Za-z_]\w*)\s*=\s*(\d+)", decl):
                if consts.get(name, int(value)) != int(value):
                    failures.append(("golden/" + g, "golden", "param %s = %s, the model has %d"
                                     % (name, value, consts[name])))
    return failures


def reference_ops():
    """Op names of /work/shared/reference/torch-ops.md's 90% set and its 'also frequent' list."""
    try:
        with open(OPS_REFERENCE) as f:
            text = f.read()
    except OSError:
        return []
    m = re.search(r"by frequency:\n(.*?)\nTraps", text, re.S)
    if not m:
        return []
    body = m.group(1).replace("Also frequent:", ",")
    names = []
    for tok in re.split(r"[,\n]", body):
        tok = re.sub(r"\(.*?\)", "", tok).strip().rstrip(".")
        if tok and re.fullmatch(r"[A-Za-z_0-9.]+", tok):
            names.append(tok)
    return names + [t for t in TRAP_OPS if t not in names]


# Why the corpus has no file for an op of the reference list (filled in by hand; an op missing
# from the corpus and from this table is reported as "no reason recorded").
NOT_COVERED_REASONS = {
    "native_dropout": "random: the corpus forwards are deterministic (the translator must reject "
                      "or drop dropout; eval-mode dropout is covered as identity)",
    "sort": "data-dependent order; only as a rejected op (bad/unsupported_argsort.py)",
    "scatter": "level 3 only (Reformer); data-dependent write, not expressible in AIR",
}
# The non-affine ops that the reference's "Traps seen in the census" paragraph names; they are
# listed with the 90% set so that the corpus says which of them it covers.
TRAP_OPS = ["gather", "index", "index_select", "argmax", "argmin", "cumsum", "cumprod",
            "embedding", "sort", "scatter"]


def covers(op, name):
    """Does the exported op 'name.overload' match the reference name (with or without overload)?"""
    return op == name or op.split(".")[0] == name


def defines(model_path, air_path):
    """`-D NAME=V` for every param of the AIR that is a module-level integer constant of the
    model, V its shrunk value (shrink() or the file's `# census:` pin): the sizes at which
    run.sh validates a translation.  Params the model does not define keep their defaults."""
    with open(model_path) as f:
        src = f.read()
    pins = dict(re.findall(r"#\s*census:\s*([A-Z_][A-Z0-9_]*)=(\d+)", src))
    consts = {}
    for node in ast.parse(src).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)
                and isinstance(node.value, ast.Constant) and type(node.value.value) is int):
            consts[node.targets[0].id] = node.value.value
    with open(air_path) as f:
        air = f.read()
    params = []
    for decl in re.findall(r"^\s*param\s+([^;]*);", air, re.M):
        for item in decl.split(","):
            params.append(item.split("=")[0].strip())
    out = []
    for p in params:
        if p in consts:
            out.append("-D %s=%d" % (p, int(pins[p]) if p in pins else shrink(consts[p])))
    return " ".join(out)


def main(argv):
    if argv[:1] == ["--defines"] and len(argv) == 3:
        print(defines(argv[1], argv[2]))
        return 0
    only = [os.path.abspath(a) for a in argv]
    models = sorted(os.path.join(MODELS, f) for f in os.listdir(MODELS) if f.endswith(".py"))
    jaxfiles = sorted(os.path.join(JAXDIR, f) for f in os.listdir(JAXDIR)
                      if f.endswith(".py")) if os.path.isdir(JAXDIR) else []
    if only:
        models = [m for m in models if m in only]
        jaxfiles = [j for j in jaxfiles if j in only]
    rows, failures = [], []
    per_op = defaultdict(list)
    for path in models:
        name = os.path.basename(path)
        t0 = time.time()
        try:
            export_ops, core_ops = export_model(path)
        except Exception as exc:  # noqa: BLE001 - a census reports every failure
            failures.append((name, "export", failure(exc)))
            print("FAIL export %s: %s" % (name, failure(exc)), file=sys.stderr)
            continue
        t1 = time.time()
        eager = "skipped (SKIP_EAGER)"
        if name not in SKIP_EAGER:
            try:
                eager = eager_model(path)
            except Exception as exc:  # noqa: BLE001
                failures.append((name, "eager", failure(exc)))
                print("FAIL eager %s: %s" % (name, failure(exc)), file=sys.stderr)
                eager = "FAIL"
        t2 = time.time()
        for op in core_ops:
            per_op[op].append(name)
        rows.append((name, core_ops, export_ops, eager, t1 - t0, t2 - t1))
        print("%-48s export %5.1fs eager %5.1fs  %s" % (name, t1 - t0, t2 - t1, " ".join(core_ops)))
    jrows, per_prim = [], defaultdict(list)
    for path in jaxfiles:
        name = os.path.basename(path)
        try:
            prims = trace_jax(path)
        except Exception as exc:  # noqa: BLE001
            failures.append(("jax/" + name, "make_jaxpr", failure(exc)))
            print("FAIL make_jaxpr %s: %s" % (name, failure(exc)), file=sys.stderr)
            continue
        try:
            eager = eager_jax(path)
        except Exception as exc:  # noqa: BLE001
            failures.append(("jax/" + name, "eager", failure(exc)))
            print("FAIL eager jax/%s: %s" % (name, failure(exc)), file=sys.stderr)
            eager = "FAIL"
        for p in prims:
            per_prim[p].append(name)
        jrows.append((name, prims, eager))
        print("jax/%-44s %s" % (name, " ".join(prims)))
    bad_rows = []
    if not only:
        bad_rows, bad_failures = check_bad()
        for name, what, got, want, code in bad_rows:
            print("bad/%-44s %s at line %s (expected line %s, exit %s)" % (name, what, got, want, code))
        failures += bad_failures + check_goldens()
        write_coverage(rows, per_op, jrows, per_prim, bad_rows, failures)
    for name, step, why in failures:
        print("FAILED %s (%s): %s" % (name, step, why), file=sys.stderr)
    return 1 if failures else 0


def count_table(w, what, per_key):
    """A markdown table: each key, how many files use it, and the first few of those files."""
    w("| %s | files | covered by |" % what)
    w("|---|---|---|")
    for key in sorted(per_key, key=lambda k: (-len(per_key[k]), k)):
        files = per_key[key]
        shown = ", ".join(f[:-3] for f in files[:6]) + (", ..." if len(files) > 6 else "")
        w("| `%s` | %d | %s |" % (key, len(files), shown))


def write_coverage(rows, per_op, jrows, per_prim, bad_rows, failures):
    import torch
    import jax
    out = []
    w = out.append
    w("# Coverage of the translation corpus")
    w("")
    w("Generated by `/work/venv/bin/python tests/translate/census.py` (torch %s, jax %s); do not "
      "edit by hand." % (torch.__version__, jax.__version__))
    w("Each models/*.py file is built on the meta device at its full sizes, exported with "
      "torch.export.export and decomposed to core ATen (`run_decompositions()`); the ops below "
      "are those of the decomposed graph.  Each file also ran eagerly on the CPU with its size "
      "constants shrunk (census.py's shrink()) and gave finite outputs.")
    w("")
    w("%d model files, %d ATen ops; %d JAX files, %d primitives; %d failures." % (
        len(rows), len(per_op), len(jrows), len(per_prim), len(failures)))
    w("")
    if failures:
        w("## Failures")
        w("")
        for name, step, why in failures:
            w("- `%s` (%s): %s" % (name, step, why.replace("|", "\\|")))
        w("")
    w("## ATen ops (core ATen after decomposition) -> number of files")
    w("")
    count_table(w, "op", per_op)
    w("")
    ref = reference_ops()
    if ref:
        w("## Ops of /work/shared/reference/torch-ops.md not covered")
        w("")
        w("The reference's 90%% set of KernelBench level 1+2, its 'also frequent' ops and the "
          "non-affine ops of its 'Traps' paragraph (%d names); an op counts as covered when "
          "some file's decomposed graph calls it (any overload)." % len(ref))
        w("")
        missing = [r for r in ref if not any(covers(op, r) for op in per_op)]
        if not missing:
            w("None: every op of the list is covered.")
        for r in missing:
            w("- `%s`: %s" % (r, NOT_COVERED_REASONS.get(r, "no reason recorded")))
        w("")
    w("## Per file")
    w("")
    w("| file | core ATen ops | eager output (shrunk sizes) |")
    w("|---|---|---|")
    for name, core_ops, _export_ops, eager, _te, _tg in rows:
        w("| `%s` | %s | %s |" % (name, " ".join(core_ops), eager))
    w("")
    if jrows:
        w("## JAX primitives (jax.make_jaxpr at full size) -> number of files")
        w("")
        count_table(w, "primitive", per_prim)
        w("")
        w("| jax file | primitives | output (shrunk sizes) |")
        w("|---|---|---|")
        for name, prims, eager in jrows:
            w("| `%s` | %s | %s |" % (name, " ".join(prims), eager))
        w("")
    if bad_rows:
        w("## Bad inputs (bad/*.expect against plain Python and torch.export)")
        w("")
        w("Where each bad file really stops without the translator; the translator's error must "
          "name the same line (and exit with the code of the .expect file, no traceback).")
        w("")
        w("| file | what happens | line | .expect |")
        w("|---|---|---|---|")
        for name, what, got, want, code in bad_rows:
            w("| `%s` | %s | %s | exit %s, line %s |" % (name, what, got, code, want))
        w("")
    with open(COVERAGE, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
