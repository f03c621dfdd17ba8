#!/bin/sh
# torch.einsum translations against the GPU (docs/soundness.md, "einsum translations"): each
# bench/einsum/NAME.py is translated (skipped when OUT/NAME.air exists) and validated with the
# CUDA backend: the AIR computes the same numbers, and PyTorch's time (L2 flushed) stays above
# every bound of the descriptor.
#   sh bench/einsum.sh SOLAR DEVICE.json OUT
# Writes OUT/NAME.air, OUT/NAME.txt (validate's table) and OUT/NAME.json (--json).
solar=$1 dev=$2 out=$3
[ -n "$out" ] || { echo "usage: sh bench/einsum.sh SOLAR DEVICE.json OUT" >&2; exit 2; }
mkdir -p "$out" || exit 2
rc=0
for f in bench/einsum/*.py; do
  n=$(basename "$f" .py)
  if [ ! -f "$out/$n.air" ]; then
    "$solar" translate "$f" -o "$out/$n.air" || { rc=1; continue; }
  fi
  "$solar" validate "$out/$n.air" --ref "$f" --backend cuda --device "$dev" >"$out/$n.txt" 2>&1 \
    || rc=1
  "$solar" validate "$out/$n.air" --ref "$f" --backend cuda --device "$dev" --json \
    >"$out/$n.json" 2>/dev/null || rc=1
  echo "== $n"; cat "$out/$n.txt"
done
exit $rc
