#!/bin/sh
# The GPU evidence for `solar translate --hf` (docs/llm.md "Measured", docs/validation.md), one
# device call:  OUT=DIR [PART=times|validate] sh bench/gpu_hf.sh
# carried: build/solar, build/lib/ (libcjson, libisl, libgmp), build/hfpy/ (model files that
# `solar translate --hf` writes; bench/llm_table.sh makes the same under build/llm/) and
# build/hfval/ (translations with their model files: small.v is a --keep folder).
#   PART=prep sh bench/gpu_hf.sh   (here, before: writes build/hfpy/ and build/hfval/, and
#                                   copies the three libraries into build/lib/)
if [ "${PART:-}" = prep ]; then
  set -e
  mkdir -p build/hfpy build/hfval build/lib
  # the model files only (the AIRs are bench/llm_table.sh's), as `solar translate --hf`
  # writes them (translate/solar_translate/hf.py generate)
  build/venv/bin/python - <<'PY'
import sys
sys.path.insert(0, "translate")
from solar_translate import hf
for name, flags in [("llama-3-8b.prefill.b1", dict(seq=2048)), ("llama-3-8b.prefill.b8", dict(batch=8, seq=2048)),
                    ("llama-3-8b.decode.b1", dict(decode=True)), ("llama-3-8b.decode.b16", dict(decode=True, batch=16)),
                    ("llama-3-8b.decode.b64", dict(decode=True, batch=64)),
                    ("mistral-7b.prefill.b1", dict(seq=2048)), ("mistral-7b.decode.b1", dict(decode=True)),
                    ("qwen2.5-7b.prefill.b1", dict(seq=2048)), ("qwen2.5-7b.decode.b1", dict(decode=True))]:
    o = dict(dict(batch=1, seq=None, decode=False, context=None, layers=None), **flags)
    src = hf.generate(f"examples/hf/{name.split('.prefill')[0].split('.decode')[0]}.json", o)
    open(f"build/hfpy/{name}.py", "w").write(src)
PY
  ./build/solar translate --hf examples/hf/llama-3-8b.json --layers 4 --decode --context 2048 -o build/hfval/l8b4.decode.air --no-validate
  ./build/solar translate --hf examples/hf/llama-3-8b.json --layers 4 --seq 512 -o build/hfval/l8b4.prefill.air --no-validate
  ./build/solar translate --hf examples/hf/llama-3-8b.json --layers 2 --seq 64 -o build/hfval/small.air --keep build/hfval/small.v
  for l in libcjson.so.1 libisl.so.23 libgmp.so.10; do
    cp -L "$(ldconfig -p | grep "$l " | head -1 | awk '{print $NF}')" build/lib/
  done
  exit 0
fi
export LD_LIBRARY_PATH=$PWD/build/lib SOLAR_PYTHON=python3 SOLAR_DEVICE_PATH=$PWD/devices
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv > "$OUT/gpu.txt" 2>&1
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' >> "$OUT/gpu.txt" 2>&1
if [ "${PART:-times}" = times ]; then
  timeout 420 python3 bench/gpu_hf.py "$OUT/hf_times.json" build/hfpy/*.py > "$OUT/hf_times.log" 2>&1
  echo "gpu_hf rc=$?" >> "$OUT/gpu.txt"
fi
if [ "${PART:-times}" = validate ] || [ "${PART:-times}" = times ]; then
  # the --keep folder's wrapper names the model file by its path on the machine it was made on
  sed -i "s|'[^']*/build/hfval/|'$PWD/build/hfval/|g" build/hfval/small.v/model.py
  timeout 150 ./build/solar validate build/hfval/small.v/validate.air --ref build/hfval/small.v/model.py --backend cuda > "$OUT/v_small.txt" 2>&1
  echo "validate small rc=$?" >> "$OUT/gpu.txt"
fi
if [ "${PART:-times}" = validate ]; then
  for x in decode prefill; do
    timeout 240 ./build/solar validate build/hfval/l8b4.$x.air --ref build/hfval/l8b4.$x.py --backend cuda --device h200-sxm > "$OUT/v_l8b4_$x.txt" 2>&1
    echo "validate l8b4.$x rc=$?" >> "$OUT/gpu.txt"
  done
fi
cat "$OUT/gpu.txt"
