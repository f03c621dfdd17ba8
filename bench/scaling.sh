#!/bin/sh
# Times `solar analyze --device devices/h100-sxm.json` on generated programs of growing size
# (bench/gen_models.py) and prints a Markdown table: wall time, CPU time (user + sys) and
# maximum resident set size, from /usr/bin/time -v, one run each.
#   sh bench/scaling.sh [build/solar] [CASE...]
# A CASE is `llama:LAYERS`, `llama-rope:LAYERS`, `chain:K` or `mmsm:K`; the default list is the
# one docs/benchmarks.md reports.  SOLAR_TIME_LIMIT (default here 600 s) stops a run; it then
# shows as "limit".
solar=${1:-build/solar}
[ $# -gt 0 ] && shift
cases=${*:-"llama:1 llama:8 llama:32 llama-rope:32 chain:100 chain:300 chain:1000 chain:3000 mmsm:100 mmsm:300 mmsm:1000 mmsm:3000"}
here=$(dirname "$0")
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
: "${SOLAR_TIME_LIMIT:=600}"; export SOLAR_TIME_LIMIT
echo "| program | kernels | tensors | AIR lines | wall s | CPU s | max RSS MB |"
echo "|---|---|---|---|---|---|---|"
for c in $cases; do
  kind=${c%%:*}; n=${c#*:}
  case $kind in
    llama) python3 "$here/gen_models.py" llama "$n" >"$t/p.air" ;;
    llama-rope) python3 "$here/gen_models.py" llama "$n" --rope >"$t/p.air" ;;
    chain|mmsm) python3 "$here/gen_models.py" "$kind" "$n" >"$t/p.air" ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  kernels=$(grep -c '^kernel ' "$t/p.air")
  tensors=$(sed -n 's/^\(in\|out\|tmp\|inout\) \(.*\):.*/\2/p' "$t/p.air" | tr ',' '\n' | grep -c '\[')
  lines=$(wc -l <"$t/p.air")
  /usr/bin/time -v "$solar" analyze --device "$here/../devices/h100-sxm.json" "$t/p.air" \
    >"$t/out" 2>"$t/time"
  rc=$?
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$t/time" |
    awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; printf "%.2f", s }')
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$t/time")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$t/time")
  if [ $rc -ne 0 ]; then
    if grep -q "time limit" "$t/time"; then wall="limit ($wall)"; else wall="FAIL rc=$rc"; fi
  fi
  echo "| $c | $kernels | $tensors | $lines | $wall | $cpu | $rss |"
done
