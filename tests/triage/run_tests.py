#!/usr/bin/env python3
"""Tests of `solar triage` (docs/triage.md) on the synthetic pools of tests/triage/pools.

Usage: run_tests.py SOLAR ROOT.  Each case runs solar, checks the exit status, the stderr and
the numbers, with the expected numbers derived here by hand from the bounds (read with
`solar analyze --json`) and the rules: r = log(measured / bound), split conformal (fit points
at even positions, calibration at odd ones, q the ceil((m+1)(1-alpha))-th smallest score),
ACI alpha += 0.05 (alpha0 - miss).  Python's standard library only.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SOLAR, ROOT = sys.argv[1], sys.argv[2]
os.chdir(ROOT)
DEV = "devices/h200-sxm.json"
POOL = "tests/triage/pools/scale"
OTHER = "tests/triage/pools/other"
TMP = tempfile.mkdtemp(prefix="triage-test-")
CACHE = os.path.join(TMP, "cache")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def close(a, b, what, rel=1e-6):
    check(a is not None and b is not None and abs(a - b) <= rel * abs(b), f"{what}: {a} != {b}")


def solar(*args):
    p = subprocess.run([SOLAR, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def triage(history=None, *extra, pool=POOL):
    args = ["triage", pool, "--device", DEV, "--l2", "cold", "--cache", CACHE, "--json", *extra]
    if history:
        args += ["--history", history]
    rc, out, err = solar(*args)
    return rc, (json.loads(out) if rc == 0 else None), text_of(err)


def text_of(err):
    """With --json, messages are JSON lines on stderr (docs/json.md): back to the text form
    (FILE:LINE:COL: error: MESSAGE, FILE: PATH: MESSAGE) the checks below look for; a line
    that is not a JSON object fails the test."""
    lines = []
    for x in err.splitlines():
        m = json.loads(x)
        check(isinstance(m, dict) and "severity" in m and "message" in m, f"not a message: {x}")
        f, msg, sev = m.get("file"), m["message"], m["severity"]
        lines.append(f"{f}:{m['line']}:{m['col']}: {sev}: {msg}" if "line" in m else
                     f"{f}: {m['path']}: {msg}" if "path" in m else
                     f"{f}: {sev}: {msg}" if f else f"solar: {msg}")
    return "\n".join(lines)


def bounds(air):
    rc, out, err = solar("analyze", air, "--device", DEV, "--l2", "cold", "--json")
    j = json.loads(out)
    return j["unfused"]["time_s"], j["cache_aware"]["time_s"]


def write(name, lines):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        for l in lines:
            f.write((l if isinstance(l, str) else json.dumps(l)) + "\n")
    return path


def line(cand, ms, **kw):
    return {"candidate": cand, "device": "h200-sxm", "ms": ms, "l2": "cold", **kw}


B, CA = bounds(f"{OTHER}/cand_1.air")            # the one-kernel bound (fused = unfused)
U = {n: bounds(f"{POOL}/{n}.air")[0] for n in ("ref", "cand_fused", "cand_twopass",
                                               "cand_threepass", "cand_fivepass")}
R8 = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
h1 = write("h1.jsonl", [line(f"{OTHER}/cand_1.air", B * math.exp(r) * 1e3) for r in R8])

# 1. Eight points of class (unfused, dram): fit 0.1 0.3 0.5 0.7 -> center 0.4; calibration
#    0.2 0.4 0.6 0.8 -> scores 0 .2 .2 .4; m = 4, index ceil(5 * 0.8) = 4 -> q = 0.4.
rc, j, err = triage(h1)
check(rc == 0, f"stage 1 exit {rc}: {err}")
c = {x["name"]: x for x in j["candidates"]}
close(j["alpha_effective"], 0.2, "stage 1 alpha (no ACI step: no point has 8 before it)")
for n in ("cand_fused", "cand_twopass", "cand_threepass", "cand_fivepass"):
    x = c[n + ".air"]
    close(x["bound_s"], U[n], f"{n} bound")
    close(x["predicted_s"], U[n] * math.exp(0.4), f"{n} predicted")
    close(x["interval_s"][0], U[n] * math.exp(0.0), f"{n} low")
    close(x["interval_s"][1], U[n] * math.exp(0.8), f"{n} high")
    check(x["decision"] == "measure", f"{n}: nothing measured, so measure")
t = c["cand_triton.py"]  # opaque: the problem's cache-aware bound, the prior (no such point)
check(t["source"] == "opaque" and "Triton" in t.get("note", ""), "triton is opaque with a note")
close(t["bound_s"], CA, "triton bound = the problem's cache-aware bound")
close(t["interval_s"][0], CA, "triton low = the problem's bound")
close(t["interval_s"][1], CA * 50, "triton high = prior 50x")
close(t["predicted_s"], CA * 3, "triton predicted = prior 3x")
check(j["schema"] == "solar.triage/1", "schema key")
check(j["plan"][0] == "cand_bad.air" or j["plan"][0] == "cand_fused.air", "fastest first")

# 2. The reference measured at U_ref e^0.45 (a ninth point, inside stage 1's interval: ACI
#    alpha 0.2 + 0.05 * 0.2 = 0.21); fit .1 .3 .5 .7 .45 -> .45; calibration scores .25 .05
#    .15 .35 -> index ceil(5 * 0.79) = 4 -> q = 0.35: intervals [U e^0.1, U e^0.8].
T = U["ref"] * math.exp(0.45)
h2f = write("h2f.jsonl", [json.dumps(line(f"{OTHER}/cand_1.air", B * math.exp(r) * 1e3))
                        for r in R8] +
           [line(f"{POOL}/ref.air", T * 1e3),
            line(f"{POOL}/cand_bad.air", 0.1, correct=False),
            {**line(f"{POOL}/cand_fused.air", 1e-4), "l2": "warm"},  # another L2 mode
            {**line(f"{POOL}/cand_fused.air", None), "correct": None, "error": "raised"}])
rc, j, err = triage(h2f, "--budget", "50%")
check(rc == 0, f"stage 2 exit {rc}: {err}")
h2 = h2f
c = {x["name"]: x for x in j["candidates"]}
close(j["alpha_effective"], 0.21, "stage 2 alpha after one ACI step that covered")
check(j["history"]["ignored_lines"] == 1, "the warm line is ignored in a cold run")
close(j["incumbent"]["measured_s"], T, "incumbent = the reference")
for n in ("cand_fused", "cand_twopass", "cand_threepass", "cand_fivepass"):
    x = c[n + ".air"]
    close(x["predicted_s"], U[n] * math.exp(0.45), f"{n} predicted, stage 2")
    close(x["interval_s"][0], U[n] * math.exp(0.1), f"{n} low, stage 2")
    close(x["interval_s"][1], U[n] * math.exp(0.8), f"{n} high, stage 2")
j_fail = {x["name"]: x for x in j["candidates"]}["cand_fused.air"]
check(j_fail["decision"] == "wrong" and "line 12" in j_fail["reason"],
      f"a failed run (error, ms null) marks the candidate wrong: {j_fail['reason']}")
h2 = write("h2.jsonl", open(h2).read().splitlines()[:-1])  # the rest of the stage without it
rc, j, err = triage(h2, "--budget", "50%")
c = {x["name"]: x for x in j["candidates"]}
want = {"cand_fused.air": "measure", "cand_twopass.air": "measure", "cand_triton.py": "measure",
        "cand_threepass.air": "skip", "cand_fivepass.air": "prune", "cand_bad.air": "wrong"}
for n, d in want.items():
    check(c[n]["decision"] == d, f"{n}: {c[n]['decision']}, expected {d} ({c[n]['reason']})")
check(U["cand_threepass"] < T < U["cand_threepass"] * math.exp(0.1),
      "threepass: bound below the incumbent (no prune), interval above it (skip)")
check(U["cand_fivepass"] >= T, "fivepass's own unfused bound is at or above the incumbent")
for x in j["candidates"]:  # the prune rule: a true bound at or above the best measured time
    if x["decision"] == "prune":
        check(x["prune_bound_s"] >= j["incumbent"]["measured_s"], f"{x['name']} prune bound")
check(c["cand_bad.air"]["rank"] is None, "a wrong candidate is never ranked")
check(j["budget"] == 3 and j["plan"] == ["cand_fused.air", "cand_triton.py", "cand_twopass.air"],
      f"plan of budget 50% of 6, by predicted time: {j['plan']}")
check("likely a new best" in c["cand_fused.air"]["reason"], "fused: interval below incumbent")

# 3. A measured time below a candidate's true bound: reported, and pruning is off.
h3 = write("h3.jsonl", [line(f"{POOL}/ref.air", U["ref"] * 0.5 * 1e3)])
rc, j, err = triage(h3)
check(rc == 0 and j["below_sol"] == 1, "below-SOL measurement counted")
check(all(x["decision"] != "prune" for x in j["candidates"]), "no prune after a below-SOL time")
rc, out, err = solar("triage", POOL, "--device", DEV, "--l2", "cold", "--cache", CACHE,
                     "--history", h3)
check("WARNING: 1 measured time is below" in out, "the table says so")

# 4. An empty history: bounds only, the prior everywhere.
rc, j, err = triage(write("empty.jsonl", []))
check(rc == 0 and j["incumbent"] is None, "empty history works")
x = {x["name"]: x for x in j["candidates"]}["cand_twopass.air"]
close(x["interval_s"][1], U["cand_twopass"] * 50, "empty history: prior high")
close(x["interval_s"][0], U["cand_twopass"], "empty history: low = own bound (own structure)")

# 5. Malformed history lines: FILE:LINE:1: error (the diag module's format, with the line and a
#    caret), every one, exit 1.
bad = write("bad.jsonl", [line(f"{POOL}/ref.air", 1.0), "{not json", {"candidate": "x",
          "device": "d", "l2": "cold"}, {**line("x", 1.0), "l2": "hot"},
          {**line("x", -3)}, {**line("x", 1.0), "correct": "yes"}, "[1, 2]"])
rc, j, err = triage(bad)
check(rc == 1, f"malformed history exits 1, not {rc}")
for want_err in ("bad.jsonl:2:1: error: not valid JSON", 'bad.jsonl:3:1: error: missing "ms"',
                 'bad.jsonl:4:1: error: "l2": expected "warm" or "cold", not "hot"',
                 'bad.jsonl:5:1: error: "ms": expected a positive number',
                 'bad.jsonl:6:1: error: "correct": expected true or false',
                 "bad.jsonl:7:1: error: expected a JSON object per line"):
    check(want_err in err, f"stderr has '{want_err}': {err}")
check("bad.jsonl:1:" not in err, "the good line has no error")

# 6. Forecasts cut by SOL.  twopass's largest speedup is T / U_twopass = e^0.45 = 1.568 (its
#    own bound): bins [2, 4) and [4, inf) are cut (mass 0.5); [1.25, 2) straddles, keeps its
#    mass, its speedup capped at 1.568, so the forecast is T / 1.568 = U_twopass.
fc = write("f.jsonl", [{"candidate": f"{POOL}/cand_twopass.air",
                        "bin_probabilities": [0, 0, 0, 0, 0, 0.5, 0.25, 0.25]}])
rc, j, err = triage(h2, "--forecasts", fc)
x = {x["name"]: x for x in j["candidates"]}["cand_twopass.air"]
close(x["forecast_cut_mass"], 0.5, "forecast mass above SOL cut")
close(x["max_speedup"], math.exp(0.45), "largest speedup physics allows")
close(x["forecast_s"], U["cand_twopass"], "forecast time after the cut")
check(U["cand_twopass"] * math.exp(0.1) <= x["predicted_s"] < U["cand_twopass"] * math.exp(0.45),
      "combined prediction between the forecast and the SOL prediction, inside the interval")
badf = write("badf.jsonl", [{"candidate": "x", "bin_probabilities": [0.5, 0.5, 0, 0, 0, 0, 0]},
                            {"candidate": "x", "bin_probabilities": [0.1] * 8},
                            {"candidate": "x", "bin_probabilities": [0.5, 0.5],
                             "bin_edges": [0, 2, 1]}])
rc, j, err = triage(h2, "--forecasts", badf)
check(rc == 1 and "badf.jsonl:1:1: error: \"bin_probabilities\": 7 bins without" in err
      and "badf.jsonl:2:1: error: \"bin_probabilities\": they sum to 0.8" in err
      and "badf.jsonl:3:1: error: \"bin_edges\"[2]" in err, f"malformed forecasts: {err}")

# 7. --record appends whole lines; a file whose last line is cut is refused, unchanged.
rec = os.path.join(TMP, "rec.jsonl")
for ms in ("1.5", "2"):
    rc, out, err = solar("triage", "--record", rec, "--candidate", f"{POOL}/cand_fused.air",
                         "--device", "h200-sxm", "--ms", ms, "--l2", "cold")
    check(rc == 0, f"record exit {rc}: {err}")
rows = [json.loads(l) for l in open(rec)]
check(len(rows) == 2 and rows[1]["ms"] == 2 and rows[0]["l2"] == "cold" and rows[0]["correct"],
      f"recorded lines: {rows}")
rc, j, err = triage(rec)
check(rc == 0 and j["incumbent"]["name"] == "cand_fused.air", "a recorded history reads back")
cut = os.path.join(TMP, "cut.jsonl")
open(cut, "w").write('{"candidate": "x", "device": "d", "ms": 1')
rc, out, err = solar("triage", "--record", cut, "--candidate", "x", "--device", "d", "--ms", "1")
check(rc == 2 and "does not end with a newline" in err
      and open(cut).read() == '{"candidate": "x", "device": "d", "ms": 1', "cut file refused")

# 8. Bad flags exit 2.
for args in (["--budget", "abc"], ["--coverage", "2"], ["--frobnicate"], ["--l2", "hot"],
             ["--format", "xml"], ["--budget", "150%"]):
    rc, out, err = solar("triage", POOL, "--device", DEV, *args)
    check(rc == 2 and err.startswith("solar: ") and "Try 'solar triage --help'" in err,
          f"{args}: exit {rc}")
rc, out, err = solar("triage", POOL)
check(rc == 2 and "--device" in err, "missing --device")
rc, out, err = solar("triage", "--record", rec, "--candidate", "x", "--device", "d")
check(rc == 2, "record without --ms")

# 9. A JSON manifest: a candidate marked wrong there; a bad entry is located.
man = os.path.join(TMP, "pool.json")
json.dump({"reference": os.path.abspath(f"{POOL}/ref.air"),
           "candidates": [os.path.abspath(f"{POOL}/cand_fused.air"),
                          {"file": os.path.abspath(f"{POOL}/cand_twopass.air"),
                           "correct": False}]}, open(man, "w"))
rc, j, err = triage(None, pool=man)
c = {x["name"]: x for x in j["candidates"]} if j else {}
check(rc == 0 and c["cand_twopass.air"]["decision"] == "wrong" and len(c) == 2,
      f"manifest pool: {err}")
json.dump({"reference": os.path.abspath(f"{POOL}/ref.air"),
           "candidates": ["nope.py"]}, open(man, "w"))
rc, j, err = triage(None, pool=man)
check(rc != 0 and "candidates[0]: cannot read the file" in err, f"manifest error: {err}")
open(man, "w").write('{"reference": "ref.air",\n "candidates": [,]}\n')
rc, j, err = triage(None, pool=man)
check(rc != 0 and f"{man}:2:17: error: invalid JSON" in err, f"invalid manifest located: {err}")
json.dump({"reference": os.path.abspath(f"{POOL}/ref.air"),
           "candidates": ["nope.py"]}, open(man, "w"))
rc, j, err = triage(None, pool=man)
# the one spelling of a JSON-path error (solar_diag_path_error): FILE: PATH: message
check(f"{man}: candidates[0]: cannot read the file" in err.splitlines(),
      f"manifest error spelled FILE: PATH: message: {err}")

man2 = os.path.join(TMP, "handmade.json")
json.dump({"reference": os.path.abspath(f"{POOL}/cand_triton.py"),
           "reference_air": os.path.abspath(f"{POOL}/ref.air"),
           "candidates_folder": os.path.abspath(OTHER)}, open(man2, "w"))
rc, j, err = triage(None, pool=man2)
check(rc == 0 and j["pool"] == "handmade" and [x["name"] for x in j["candidates"]] == ["cand_1.air"]
      and abs(j["reference"]["unfused_s"] - U["ref"]) < 1e-12 * U["ref"]
      and j["reference"]["file"].endswith("cand_triton.py"),
      f"manifest with reference_air and candidates_folder: {err} {j and j['reference']}")

# The own-structure rule: a .py bounded with an .air prunes on that AIR's unfused bound only
# when the AIR is its own structure.
for st, want in (("not-own", "skip"), ("own", "prune")):
    json.dump({"reference": os.path.abspath(f"{POOL}/ref.air"),
               "candidates": [{"file": os.path.abspath(f"{POOL}/cand_triton.py"),
                               "air": os.path.abspath(f"{POOL}/cand_fivepass.air"),
                               "structure": st}]}, open(man, "w"))
    rc, j, err = triage(h2, pool=man)
    x = j["candidates"][0] if j else {}
    check(rc == 0 and x.get("decision") == want, f"structure {st}: {x.get('decision')}, "
          f"expected {want} ({x.get('reason')})")
    close(x.get("prune_bound_s"), U["cand_fivepass"] if st == "own" else CA,
          f"structure {st}: prune bound")

# 10. Coverage: 40 points r ~ U(0, 1) (fixed LCG), then 2000 fresh points of the same
#     distribution fall inside the 80% interval at least 70% of the time (split conformal
#     guarantees 80% on average over histories; one history may fall short by sampling).
seed = 12345
def rnd():
    global seed
    seed = (seed * 1103515245 + 12345) % 2**31
    return seed / 2**31
hc = write("cov.jsonl", [line(f"{OTHER}/cand_1.air", B * math.exp(rnd()) * 1e3) for _ in range(40)])
rc, j, err = triage(hc, "--coverage", "0.8")
x = {x["name"]: x for x in j["candidates"]}["cand_fused.air"]
lo, hi = (math.log(v / U["cand_fused"]) for v in x["interval_s"])
inside = sum(lo <= rnd() <= hi for _ in range(2000)) / 2000
check(0.7 <= inside <= 1.0, f"coverage of the 80% interval on fresh points: {inside}")
print(f"coverage of the 80% interval on 2000 fresh points: {inside:.3f} (alpha {j['alpha_effective']:.3f})")

print("FAILED: %d" % len(failures) if failures else "all triage tests passed")
sys.exit(1 if failures else 0)
