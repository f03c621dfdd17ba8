#!/bin/sh
# The language-model bounds of docs/llm.md: every shipped config (examples/hf/) translated with
# `solar translate --hf` for its prefill and decode steps, and analyzed on each device.
#   sh bench/llm_table.sh [WORK]      (default build/llm; needs build/solar and `make venv`)
# Writes WORK/NAME.air and WORK/NAME.py (the model file: bench/gpu_hf.py times it on a GPU),
# WORK/NAME.DEVICE.json (solar analyze --json, L2 warm) and WORK/NAME.DEVICE.cold.json
# (--l2 cold), and prints one line per case and device: the fused bound, its limiter, the
# DRAM traffic, and the translation and analysis times.
set -e
root=$(cd "$(dirname "$0")/.." && pwd)
solar=$root/build/solar
work=${1:-$root/build/llm}
mkdir -p "$work"
devices="h100-sxm b200 h200-sxm"
# NAME CONFIG FLAGS
cases="llama-3-8b.prefill.b1 llama-3-8b --seq 2048
llama-3-8b.prefill.b8 llama-3-8b --batch 8 --seq 2048
llama-3-8b.decode.b1 llama-3-8b --decode --context 2048
llama-3-8b.decode.b16 llama-3-8b --decode --batch 16 --context 2048
llama-3-8b.decode.b64 llama-3-8b --decode --batch 64 --context 2048
llama-3-8b.decode.b256 llama-3-8b --decode --batch 256 --context 2048
llama-3-70b.prefill.b1 llama-3-70b --seq 2048
llama-3-70b.decode.b1 llama-3-70b --decode --context 2048
llama-3-70b.decode.b64 llama-3-70b --decode --batch 64 --context 2048
mistral-7b.prefill.b1 mistral-7b --seq 2048
mistral-7b.decode.b1 mistral-7b --decode --context 2048
qwen2.5-7b.prefill.b1 qwen2.5-7b --seq 2048
qwen2.5-7b.decode.b1 qwen2.5-7b --decode --context 2048
mixtral-8x7b.prefill.b1 mixtral-8x7b --seq 2048
mixtral-8x7b.decode.b1 mixtral-8x7b --decode --context 2048
mixtral-8x7b.decode.b64 mixtral-8x7b --decode --batch 64 --context 2048"
echo "$cases" | while read -r name cfg flags; do
  if [ ! -s "$work/$name.air" ]; then
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$solar" translate --hf "$root/examples/hf/$cfg.json" $flags -o "$work/$name.air" --no-validate >"$work/$name.log" 2>&1 \
      || { cat "$work/$name.log"; exit 1; }
    t1=$(date +%s.%N)
    echo "$name: translated in $(echo "$t1 - $t0" | bc) s" >>"$work/times.txt"
  fi
  for d in $devices; do
    t0=$(date +%s.%N)
    "$solar" analyze "$work/$name.air" --device "$d" --json >"$work/$name.$d.json"
    t1=$(date +%s.%N)
    "$solar" analyze "$work/$name.air" --device "$d" --l2 cold --json >"$work/$name.$d.cold.json"
    python3 "$root/bench/llm_row.py" "$work/$name.$d.json" "$work/$name.$d.cold.json" "$name" "$d" "$(echo "$t1 - $t0" | bc)"
  done
done
