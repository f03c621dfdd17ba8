#!/bin/sh
# Times `solar count` on every example at its default sizes and with every param scaled 16x.
#   sh bench/count_examples.sh [build/solar]     (prints a Markdown table)
# Each time is the median of 5 runs of the whole process (parse, check, count), in ms.
solar=${1:-build/solar}
runs=5
median_ms() {
  i=0; : >/tmp/solar_bench_t
  while [ $i -lt $runs ]; do
    t0=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "FAIL"; return; }
    t1=$(date +%s%N); echo $(( (t1 - t0) / 1000 )) >>/tmp/solar_bench_t; i=$((i + 1))
  done
  sort -n /tmp/solar_bench_t | sed -n "$(( (runs + 1) / 2 ))p" | awk '{printf "%.1f", $1 / 1000}'
}
echo "| example | params (default) | ms | params x16 | ms |"
echo "|---|---|---|---|---|"
for f in examples/*.air; do
  name=$(basename "$f" .air)
  params=$(sed -n 's/^param \(.*\);.*/\1/p' "$f" | tr ',' '\n' | sed -n 's/ *\([A-Za-z_][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\).*/\1=\2/p')
  defs=""; big=""
  for p in $params; do
    n=${p%%=*}; v=${p#*=}
    defs="$defs $n=$v"; big="$big -D $n=$((v * 16))"
  done
  t1=$(median_ms "$solar" count "$f")
  # shellcheck disable=SC2086
  t2=$(median_ms "$solar" count $big "$f")
  echo "| $name |$defs | $t1 | x16 | $t2 |"
done
