"""The counting rules of indices that read data (docs/bounds.md, "Indexing with data"), checked
against brute force: for every assignment of the index data a tiny program's ranges allow, the
program with those values written in (an AIR 1 program: the data statement unrolled over its
data iterator, each instance's index a literal) is counted exactly by solar's affine analysis;
the AIR 1.1 program's counts must never exceed the fewest over all assignments (a lower bound
on what every run moves), per kernel and for the program as one kernel, for every tensor's
footprints, loads and stores.  A case also names counts that must equal that fewest where the
rule is exact (so the rules cannot pass by counting zero).

Usage: data_index_brute.py SOLAR
"""
import itertools
import json
import subprocess
import sys

FIELDS = ("read_elements", "written_elements", "loaded_elements", "stored_elements")

# Each case: header (declarations, with {R} where the index tensor's range goes), kernels (a
# list of statements per kernel: a plain string, or a pair (data form, concrete form) whose
# concrete form is unrolled over t in 0..T with {t} and {v} = ids[t]), T and V, and the counts
# that must be exact: (scope, tensor, field) with scope a kernel index or "total".
CASES = [
    {   # embedding: one row at the fewest; the output exact
        "name": "embedding",
        "decls": "param T = 3, V = 3, D = 2; in ids[T]: i64 in 0..V; in E[V, D]: f32; "
                 "out y[T, D]: f32;",
        "kernels": [[("for t in 0..T, d in 0..D { y[t, d] = E[ids[t], d]; }",
                      "for d in 0..D { y[{t}, d] = E[{v}, d]; }")]],
        "exact": [("total", "E", "loaded_elements"), ("total", "y", "stored_elements")],
    },
    {   # an affine read of one row and a gather of the same tensor: max, never a union
        "name": "row_and_gather",
        "decls": "param T = 3, V = 3, D = 2; in ids[T]: i64 in 0..V; in E[V, D]: f32; "
                 "out y[T, D]: f32; out z[D]: f32;",
        "kernels": [["for d in 0..D { z[d] = E[2, d]; }",
                     ("for t in 0..T, d in 0..D { y[t, d] = E[ids[t], d]; }",
                      "for d in 0..D { y[{t}, d] = E[{v}, d]; }")]],
        "exact": [("total", "E", "loaded_elements")],
    },
    {   # cross-entropy's pick from rows it reads whole: the pick adds nothing
        "name": "pick",
        "decls": "param T = 3, V = 3; in ids[T]: i64 in 0..V; in x[T, V]: f32; "
                 "tmp m[T]: f32; out p[T]: f32;",
        "kernels": [["for t in 0..T { m[t] = -inf; }",
                     "for t in 0..T, c in 0..V { m[t] max= x[t, c]; }",
                     ("for t in 0..T { p[t] = x[t, ids[t]] - m[t]; }",
                      "p[{t}] = x[{t}, {v}] - m[{t}];")]],
        "exact": [("total", "x", "loaded_elements")],
    },
    {   # a gather of a tmp made by an earlier kernel: loaded there, fed when fused
        "name": "gather_tmp",
        "decls": "param T = 2, V = 3, D = 2; in ids[T]: i64 in 0..V; in E[V, D]: f32; "
                 "tmp F[V, D]: f32; out y[T, D]: f32;",
        "kernels": [["for v in 0..V, d in 0..D { F[v, d] = E[v, d] * 2.0; }"],
                    [("for t in 0..T, d in 0..D { y[t, d] = F[ids[t], d]; }",
                      "for d in 0..D { y[{t}, d] = F[{v}, d]; }")]],
        "exact": [(1, "F", "loaded_elements"), ("total", "E", "loaded_elements")],
    },
    {   # embedding backward: zero, then scatter-add with duplicates, in two kernels
        "name": "scatter_add",
        "decls": "param T = 3, V = 3, D = 2; in ids[T]: i64 in 0..V; in dy[T, D]: f32; "
                 "out g[V, D]: f32;",
        "kernels": [["for v in 0..V, d in 0..D { g[v, d] = 0.0; }"],
                    [("for t in 0..T, d in 0..D { g[ids[t], d] += dy[t, d]; }",
                      "for d in 0..D { g[{v}, d] += dy[{t}, d]; }")]],
        "exact": [("total", "g", "stored_elements"), (1, "dy", "loaded_elements")],
    },
    {   # scatter-add combines: free into the identity, charged into an input's values
        "name": "scatter_combines",
        "decls": "param T = 3, V = 2; in ids[T]: i64 in 0..V; in x[T]: f32; inout a[V]: f32; "
                 "out g[V]: f32;",
        "kernels": [["for v in 0..V { g[v] = 0.0; }",
                     ("for t in 0..T { g[ids[t]] += x[t]; }", "g[{v}] += x[{t}];"),
                     ("for t in 0..T { a[ids[t]] += x[t]; }", "a[{v}] += x[{t}];")]],
        "exact": [("total", "(ops)", "simt_f32")],
    },
    {   # an assumption: at least 2 different ids, so at least 2 rows of the table
        "name": "assume_distinct",
        "decls": "param T = 3, V = 3, D = 2; in ids[T]: i64 in 0..V; in E[V, D]: f32; "
                 "out y[T, D]: f32; assume distinct(ids) >= 2;",
        "assume": 2,
        "kernels": [[("for t in 0..T, d in 0..D { y[t, d] = E[ids[t], d]; }",
                      "for d in 0..D { y[{t}, d] = E[{v}, d]; }")]],
        "exact": [("total", "E", "loaded_elements"), (0, "E", "read_elements")],
    },
    {   # an assumption that cannot apply (the data position is not the read alone)
        "name": "assume_not_alone",
        "decls": "param T = 3, V = 2, D = 2; in ids[T]: i64 in 0..V; in E[V + 1, D]: f32; "
                 "out y[T, D]: f32; assume distinct(ids) >= 2;",
        "assume": 2,
        "kernels": [[("for t in 0..T, d in 0..D { y[t, d] = E[ids[t] + 1, d]; }",
                      "for d in 0..D { y[{t}, d] = E[{v} + 1, d]; }")]],
        "exact": [],
    },
    {   # a plain scatter after an initialising kernel: it may overwrite what was stored
        "name": "scatter_plain",
        "decls": "param T = 2, V = 3, D = 2; in ids[T]: i64 in 0..V; in x[T, D]: f32; "
                 "out g[V, D]: f32;",
        "kernels": [["for v in 0..V, d in 0..D { g[v, d] = 1.0; }"],
                    [("for t in 0..T, d in 0..D { g[ids[t], d] = x[t, d]; }",
                      "for d in 0..D { g[{v}, d] = x[{t}, d]; }")]],
        "exact": [("total", "g", "stored_elements")],
    },
    {   # a scatter into a tmp, then an affine read of it in the same kernel
        "name": "scatter_then_read",
        "decls": "param T = 2, V = 3; in ids[T]: i64 in 0..V; in x[T]: f32; tmp h[V]: f32; "
                 "out s[V]: f32;",
        "kernels": [["for v in 0..V { h[v] = 0.0; }",
                     ("for t in 0..T { h[ids[t]] += x[t]; }", "h[{v}] += x[{t}];"),
                     "for v in 0..V { s[v] = h[v] * 2.0; }"]],
        "exact": [("total", "s", "stored_elements")],
    },
    {   # data inside an affine expression of the index
        "name": "data_expression",
        "decls": "param T = 2, V = 2, D = 2; in ids[T]: i64 in 0..V; in E[2 * V + 1, D]: f32; "
                 "out y[T, D]: f32;",
        "kernels": [[("for t in 0..T, d in 0..D { y[t, d] = E[2 * ids[t] + 1, d]; }",
                      "for d in 0..D { y[{t}, d] = E[2 * {v} + 1, d]; }")]],
        "exact": [("total", "E", "loaded_elements")],
    },
]


def program(case, values):
    """The AIR text: AIR 1.1 with its data statements when values is None, else AIR 1 with
    them unrolled over t for those index values."""
    decls = case["decls"]
    if values is not None:  # no index tensor: drop its declaration and assumptions
        decls = " ".join(d.strip() + ";" for d in decls.split(";")
                         if d.strip() and not d.strip().startswith(("in ids", "assume")))
    lines = ["air 1.1;" if values is None else "air 1;", decls]
    for k, stmts in enumerate(case["kernels"]):
        lines.append(f"kernel k{k} {{")
        for st in stmts:
            if isinstance(st, str):
                lines.append("  " + st)
            elif values is None:
                lines.append("  " + st[0])
            else:
                for t, v in enumerate(values):
                    lines.append("  " + st[1].replace("{t}", str(t)).replace("{v}", str(v)))
        lines.append("}")
    return "\n".join(lines) + "\n"


def counts(solar, text, name):
    r = subprocess.run([solar, "count", "-", "--format", "json"], input=text, text=True,
                       capture_output=True)
    if r.returncode:
        sys.exit(f"{name}: solar count failed ({r.returncode}):\n{text}\n{r.stderr}")
    d = json.loads(r.stdout)
    scopes = {k: kern["tensors"] for k, kern in enumerate(d["kernels"])}
    scopes["total"] = dict(d["total"]["tensors"])
    # the work, as a pseudo-tensor whose fields are the op counts by datapath
    ops = {f: 0 for f in FIELDS}
    ops.update(d["total"]["ops"])
    scopes["total"]["(ops)"] = ops
    return scopes


def check(solar, case):
    T, V = (int(case["decls"].split(f"{n} = ")[1].split(",")[0].split(";")[0]) for n in "TV")
    got = counts(solar, program(case, None), case["name"])
    fewest = {}
    for values in itertools.product(range(V), repeat=T):
        if len(set(values)) < case.get("assume", 0):
            continue  # data the program's assumption excludes
        real = counts(solar, program(case, values), case["name"])
        for scope, tensors in real.items():
            for tensor, c in tensors.items():
                for f in c if tensor == "(ops)" else FIELDS:
                    key = (scope, tensor, f)
                    fewest[key] = min(fewest.get(key, c[f]), c[f])
    bad = []
    for (scope, tensor, f), low in fewest.items():
        mine = got.get(scope, {}).get(tensor, {}).get(f, 0)
        if mine > low:
            bad.append(f"{scope}/{tensor}/{f}: solar {mine} > fewest over the data {low}")
    for key in case["exact"]:
        mine = got.get(key[0], {}).get(key[1], {}).get(key[2], 0)
        if mine != fewest.get(key, 0):
            bad.append(f"{'/'.join(map(str, key))}: solar {mine}, fewest {fewest.get(key, 0)}"
                       " (the rule is exact here)")
    return bad


def main():
    solar = sys.argv[1]
    failed = False
    for case in CASES:
        bad = check(solar, case)
        print(f"{case['name']}: {'ok' if not bad else 'FAIL'}")
        for b in bad:
            print("  " + b)
        failed |= bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
