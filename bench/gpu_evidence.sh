#!/bin/sh
# The GPU evidence that docs/ cites, in one run on a lent H200 (nothing is installed there).
#   sh bench/gpu_evidence.sh OUTDIR [TRANSLATED_DIR]
#   PARTS="clock soundness l2roof validate limit" (the default: all) picks parts, so that each call
#   fits the lease's 10-minute limit.
# Needs, beside the working tree: build/solar built on the Debian machine, the shared libraries
# it links that the GPU machine lacks (libcjson, and this machine's libisl and libgmp) in
# .carry/, and the AIR that `solar translate` wrote for every examples/*.py in TRANSLATED_DIR
# (default .carry/translated).  Writes into OUTDIR:
#   gpu.txt        what nvidia-smi says of the GPU and its clocks
#   clock.json     bench/clock_probe.py: the SM clock while the tensor cores work
#   validate.tgz   per example: `solar validate --backend cuda --json` of the translated AIR
#                  against the PyTorch original (verdict, errors, reference time, bounds)
#   summary.txt    one line per example: verdict, reference time, bounds, headroom
#   soundness.json bench/soundness.py (or $SOUNDNESS): every example timed under both L2
#                  protocols, for bench/soundness_report.py
#   l2_roof.txt    bench/l2_roof.py: L2-resident kernels against the derived L2 bandwidth roof
#   limit.txt      `SOLAR_TIME_LIMIT=5 solar validate --backend cuda`: the limit covers only
#                  solar's own analysis, not the GPU runs (docs/validate.md, "Two time limits")
set -u
out=$1 tr=${2:-.carry/translated}
export LD_LIBRARY_PATH="$PWD/.carry${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
S=./build/solar
mkdir -p "$out/v"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv \
  >"$out/gpu.txt" 2>&1
python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.get_device_name(0))' \
  >>"$out/gpu.txt" 2>&1
$S --version >>"$out/gpu.txt" 2>&1
PARTS=${PARTS:-clock soundness l2roof validate limit}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
if has clock; then
  timeout 150 python3 bench/clock_probe.py "$out/clock.json" >"$out/clock.log" 2>&1
  echo "clock_probe rc=$?" >>"$out/gpu.txt"
fi
if has soundness; then
  timeout 500 python3 "${SOUNDNESS:-bench/soundness.py}" "$out/soundness.json" >"$out/soundness.log" 2>&1
  echo "soundness rc=$?" >>"$out/gpu.txt"
fi
if has l2roof; then
  timeout 200 python3 bench/l2_roof.py devices/h200-sxm.json >"$out/l2_roof.txt" 2>&1
  echo "l2_roof rc=$?" >>"$out/gpu.txt"
fi
has validate && for air in "$tr"/*.air; do
  n=$(basename "$air" .air)
  [ -f "examples/$n.py" ] || continue
  timeout 150 $S validate "$air" --ref "examples/$n.py" --backend cuda \
    --device devices/h200-sxm.json --json >"$out/v/$n.json" 2>"$out/v/$n.err"
  echo "$n rc=$?" >>"$out/v/rc.txt"
done
has validate && python3 - "$out" >"$out/summary.txt" 2>&1 <<'EOF'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for p in sorted((out / "v").glob("*.json")):
    try:
        j = json.loads(p.read_text())
    except Exception as e:
        print(p.stem, "unreadable:", e)
        continue
    print(p.stem, json.dumps(j, separators=(",", ":"))[:1500])
EOF
if has limit; then
  SOLAR_TIME_LIMIT=5 timeout 120 $S validate examples/softmax.air --ref examples/softmax.py \
    --backend cuda --device devices/h200-sxm.json >"$out/limit.txt" 2>&1
  echo "rc=$?" >>"$out/limit.txt"
fi
has validate && tar czf "$out/validate.tgz" -C "$out" v
rm -rf "$out/v"
