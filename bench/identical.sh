#!/bin/sh
# Writes the outputs of one solar binary on every program of the tree, for a byte-for-byte
# comparison of two binaries (a speed change must not move any output):
#   sh bench/identical.sh BINARY OUTDIR [EXTRA.air ...]
#   sh bench/identical.sh build-before/solar /tmp/before && sh bench/identical.sh build/solar /tmp/after
#   diff -r /tmp/before /tmp/after && ls /tmp/after | wc -l
# Runs `count`, `count --json`, `analyze --device devices/h100-sxm.json` (table and --json),
# `check` and `graph` on every examples/**.air, tests/**.air and EXTRA.air, plus each golden test
# with its own arguments (.args or `# args:`); stdout, stderr and the exit status of each run go
# to one file per run in OUTDIR.  Generated programs (bench/gen_models.py llama 2, llama 2
# --rope, mmsm 4, chain 6) are included.
solar=$(realpath "$1") out=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
dev=$root/devices/h100-sxm.json
mkdir -p "$out" "$out/gen"
python3 "$root/bench/gen_models.py" llama 2 >"$out/gen/llama2.air"
python3 "$root/bench/gen_models.py" llama 2 --rope >"$out/gen/llama2rope.air"
python3 "$root/bench/gen_models.py" mmsm 4 >"$out/gen/mmsm4.air"
python3 "$root/bench/gen_models.py" chain 6 >"$out/gen/chain6.air"
one() { # NAME DIR CMD...
  name=$1 dir=$2; shift 2
  (cd "$dir" && SOLAR_TIME_LIMIT=600 "$@" >"$out/$name" 2>"$out/$name.err"; echo "rc=$?" >>"$out/$name.err")
}
n=0
for f in $(cd "$root" && find examples tests -name '*.air' | sort) "$out"/gen/*.air "$@"; do
  case $f in /*) path=$f ;; *) path=$root/$f ;; esac
  key=$(echo "$f" | sed "s#^$out/##; s#[/ ]#_#g")
  dir=$(dirname "$path") base=$(basename "$path")
  one "$key.count" "$dir" "$solar" count "$base"
  one "$key.count.json" "$dir" "$solar" count --json "$base"
  one "$key.analyze" "$dir" "$solar" analyze --device "$dev" "$base"
  one "$key.analyze.json" "$dir" "$solar" analyze --device "$dev" --json "$base"
  one "$key.check" "$dir" "$solar" check "$base"
  one "$key.graph" "$dir" "$solar" graph "$base"
  n=$((n + 6))
done
for f in $(cd "$root" && find tests/golden -name '*.air' | sort); do
  dir=$root/$(dirname "$f") base=$(basename "$f" .air) cmd=$(basename "$(dirname "$f")")
  if [ -f "$dir/$base.args" ]; then
    args=$(head -n 1 "$dir/$base.args" | sed "s#\$ROOT#$root#g")
  else
    args=$(sed -n 's/^# args: //p' "$root/$f" | head -n 1 | sed "s#\$ROOT#$root#g")
  fi
  key=$(echo "$f" | sed 's#/#_#g').golden
  (cd "$dir" && eval "SOLAR_TIME_LIMIT=600 \"$solar\" $cmd $args \"$base.air\"" >"$out/$key" 2>"$out/$key.err"
   echo "rc=$?" >>"$out/$key.err")
  n=$((n + 1))
done
echo "$n runs in $out"
