#!/bin/sh
# KernelBench level-3 training steps validated on the GPU (docs/translate.md, "KernelBench
# level 3"): `solar translate P.py --train --optimizer adamw --backend cuda` for the problems
# whose validation is too large for the C backend, on a lent H200 (nothing installed there).
#   sh bench/gpu_validate_train.sh OUTDIR PROBLEM.py...
# Needs, beside the working tree: build/solar built on the Debian machine and the shared
# libraries it links that the GPU machine lacks (this machine's libcjson, libisl and libgmp) in
# .carry/, and the problems (KernelBench is fetched, not vendored: copy them into .carry/).
# The problems run at once.  Writes OUTDIR/<problem>.log (the translation's and the validation's output, with the float64
# rule's figures of every output that needed it) and OUTDIR/summary.txt (one line a problem).
set -u
out=$1; shift
export LD_LIBRARY_PATH="$PWD/.carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SOLAR_PYTHON=${SOLAR_PYTHON:-python3}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/summary.txt" 2>&1
one() {
  p=$1 n=$(basename "$p" .py) w=/tmp/gvt/$n
  rm -rf "$w"; mkdir -p "$w"
  t0=$(date +%s)
  timeout "${LIMIT:-280}" ./build/solar translate "$p" --train --optimizer adamw --backend cuda \
    -o "$w/$n.air" --keep "$w/keep" >"$out/$n.log" 2>&1
  rc=$?
  # the comparison again on the kept files: every output's figures (the float64 rule's too)
  k=$w/keep/validate
  [ -f "$k/air.json" ] && python3 validate/harness.py compare --air "$k/air.json" --dir "$k" 2>&1 |
    python3 -c '
import json, sys
j = json.loads(sys.stdin.read())
print("== compare: pass", j["pass"], "tf32", j.get("tf32"))
keys = ("name", "rel_l2", "pass", "check", "rel_l2_f64", "ref_rel_l2_f64", "air64_rel_l2",
        "airacc_rel_l2", "refdec_rel_l2", "reason")
for o in j["outputs"]:
    print(json.dumps({k: o.get(k) for k in keys if k in o})[:700])' >>"$out/$n.log" 2>&1
  echo "$n rc=$rc $(( $(date +%s) - t0 )) s: $(grep -h 'validated\|error' "$out/$n.log" | head -2 | tr '\n' ' ' | cut -c1-400)" >>"$out/summary.txt"
}
# the problems at once: each is mostly the CPU's (tracing, the reference's Python), the GPU
# runs are short
for p in "$@"; do one "$p" & done
wait
cat "$out/summary.txt"
