"""What bench/pools/check_cpu.py and bench/pools/measure.py share: reading and checking a pool's
pool.json, loading its modules, building a model with its inputs, comparing outputs.

A pool is a folder bench/pools/<problem>/ with ref.py, cand_*.py (each in the KernelBench Model
convention: class Model, get_inputs(), get_init_inputs(), sizes as module-level int constants)
and pool.json (bench/pools/README.md describes its fields).  The reference and a candidate are
built the way validate/harness.py builds a model: one seed, Model(*get_init_inputs()), then
get_inputs(); every candidate is run on the reference's inputs, so all see the same data.
"""
import importlib.util
import json
import pathlib
import re

SEED = 0
KINDS = {"eager", "decomp", "library", "compile", "triton", "poor"}
DIRECTIONS = {"fusion", "data reuse", "datapath", "redundant work", "implementation"}
REQUIRED = ("problem", "description", "ref", "dtype", "tolerance", "tf32_allowed", "cpu_sizes",
            "candidates", "trajectories")
CANDIDATE_KEYS = ("file", "kind", "direction", "strategy", "parent")


class PoolError(Exception):
    """A pool.json that breaks the format: the message starts with the file and the JSON path."""


def load_pool(folder):
    """Reads folder/pool.json and checks it against the folder; returns the dict."""
    folder = pathlib.Path(folder)
    path = folder / "pool.json"
    try:
        pool = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise PoolError(f"{path}: {e}")
    for key in REQUIRED:
        if key not in pool:
            raise PoolError(f"{path}: missing key '{key}'")
    files = []
    for i, c in enumerate(pool["candidates"]):
        where = f"{path}: candidates[{i}]"
        for key in CANDIDATE_KEYS:
            if not isinstance(c.get(key), str) or not c[key]:
                raise PoolError(f"{where}.{key}: expected a non-empty string")
        if c["kind"] not in KINDS:
            raise PoolError(f"{where}.kind: '{c['kind']}' is not one of {sorted(KINDS)}")
        if c["direction"] not in DIRECTIONS:
            raise PoolError(f"{where}.direction: '{c['direction']}' is not one of {sorted(DIRECTIONS)}")
        if not (folder / c["file"]).is_file():
            raise PoolError(f"{where}.file: {c['file']} is not in {folder}")
        files.append(c["file"])
    on_disk = sorted(p.name for p in folder.glob("cand_*.py"))
    if sorted(files) != on_disk:
        raise PoolError(f"{path}: candidates list {sorted(set(files) ^ set(on_disk))} "
                        "not both in pool.json and on disk")
    parent = {c["file"]: c["parent"] for c in pool["candidates"]}
    for i, c in enumerate(pool["candidates"]):
        seen, node = set(), c["file"]
        while node != "ref":
            if node in seen or parent.get(node) is None:
                raise PoolError(f"{path}: candidates[{i}].parent: '{c['parent']}' does not lead "
                                "back to 'ref' (unknown file or a cycle)")
            seen.add(node)
            node = parent[node]
    for i, t in enumerate(pool["trajectories"]):
        for j in range(1, len(t)):
            if parent.get(t[j]) != t[j - 1]:
                raise PoolError(f"{path}: trajectories[{i}][{j}]: the parent of {t[j]} is "
                                f"'{parent.get(t[j])}', not '{t[j - 1]}'")
    return pool


def load_module(path, sizes=None):
    """Imports a pool file as a fresh module of its own; sizes overrides module constants."""
    path = pathlib.Path(path).resolve()
    name = "pool_" + re.sub(r"\W", "_", f"{path.parent.name}_{path.stem}")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for k, v in (sizes or {}).items():
        if not hasattr(mod, k):
            raise PoolError(f"{path}: has no module constant {k} (cpu_sizes names it)")
        setattr(mod, k, v)
    return mod


def uses_triton(folder, cand):
    """Whether a candidate launches a hand-written Triton kernel (imports pool_triton)."""
    return "pool_triton" in (pathlib.Path(folder) / cand["file"]).read_text()


def sizes_of(mod, names):
    return {k: getattr(mod, k, None) for k in names}


def build(torch, mod, device, with_inputs=True):
    """Model(*get_init_inputs()) and get_inputs() after one seed, both on device."""
    torch.manual_seed(SEED)
    model = mod.Model(*mod.get_init_inputs()).to(device)
    inputs = None
    if with_inputs:
        inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in mod.get_inputs()]
    return model, inputs


def input_signature(torch, mod):
    """Shapes and dtypes of get_inputs() without making the data (on the meta device)."""
    with torch.device("meta"):
        return [(tuple(x.shape), x.dtype) if isinstance(x, torch.Tensor) else repr(x)
                for x in mod.get_inputs()]


# A candidate whose largest error against the float64 result is at most this multiple of the
# reference's own largest error there is as accurate as the reference, within the noise of one
# largest element (bench/pools/README.md, "Correctness").
REF_ERROR_MULTIPLE = 2.0


def exact_output(torch, model, inputs):
    """The reference's output computed in float64 on the same inputs: a copy of the model with
    its floating parameters and buffers and the floating inputs cast to float64.  None when the
    reference does not run in float64 or does not return float64 (it casts inside forward), so
    there is nothing exact to compare with."""
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "validate"))
    import harness   # the float64 run of `solar validate`'s float64 rule, shared
    try:
        outs = harness.torch_float64_forward(torch, *harness.torch_float64_copy(torch, model, inputs))
    except Exception:   # noqa: BLE001 - no float64 kernel for some op: the old rule alone
        return None
    if not all(isinstance(o, torch.Tensor) and o.dtype == torch.float64 for o in outs):
        return None
    return [o.detach() for o in outs]


def compare(torch, out, ref, tol, exact=None, detail=None):
    """(correct, max_abs_err, why).  Correct when every output is allclose to the reference's
    with rtol = atol = tol (KernelBench's check), or, given exact (exact_output: the reference
    in float64 on the same inputs), when every output is allclose to the float64 result at tol
    or its largest error there is at most REF_ERROR_MULTIPLE times the reference's own.
    max_abs_err is against the reference, as before; detail (a dict) receives the errors
    against float64 and the rule that decided."""
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    refs = list(ref) if isinstance(ref, (list, tuple)) else [ref]
    if len(outs) != len(refs):
        return False, None, f"{len(outs)} outputs, the reference has {len(refs)}"
    if exact is not None and len(exact) != len(refs):
        exact = None
    worst, ok, ok64 = 0.0, True, exact is not None
    worst64 = ref64 = 0.0
    for i, (o, r) in enumerate(zip(outs, refs)):
        if tuple(o.shape) != tuple(r.shape):
            return False, None, f"shape {tuple(o.shape)}, the reference's is {tuple(r.shape)}"
        if o.dtype != r.dtype:
            return False, None, f"dtype {o.dtype}, the reference's is {r.dtype}"
        of, rf = o.detach().float(), r.detach().float()
        if not torch.isfinite(of).all():
            return False, None, "non-finite values in the output"
        worst = max(worst, (of - rf).abs().max().item() if of.numel() else 0.0)
        ok = ok and torch.allclose(of, rf, rtol=tol, atol=tol)
        if exact is not None and of.numel():
            x, od, rd = exact[i].to(o.device), o.detach().double(), r.detach().double()
            e_c, e_r = (od - x).abs().max().item(), (rd - x).abs().max().item()
            worst64, ref64 = max(worst64, e_c), max(ref64, e_r)
            ok64 = ok64 and (torch.allclose(od, x, rtol=tol, atol=tol) or e_c <= REF_ERROR_MULTIPLE * e_r)
    if detail is not None and exact is not None:
        detail.update(max_err_f64=worst64, ref_err_f64=ref64)
    if detail is not None:
        detail["check"] = ("allclose to the reference" if ok else
                           "against float64" if ok64 else "wrong")
    if ok or ok64:
        return True, worst, ""
    why = f"max abs error {worst:.3g} above tolerance {tol:g}"
    if exact is not None:
        why += (f"; against float64 {worst64:.3g}, above the tolerance and above "
                f"{REF_ERROR_MULTIPLE:g}x the reference's own {ref64:.3g}")
    return False, worst, why
