#!/bin/sh
# Instructions (millions, callgrind) of `solar analyze --device devices/h100-sxm.json` on every
# example at its default sizes, with every param divided by 8 (at least 1) and with every param
# scaled 16x: the figure to compare across changes, since it does not depend on the machine's
# load (bench/examples_cpu.sh gives the CPU time).  Prints a Markdown table.
#   sh bench/examples_instr.sh [build/solar]
# Needs valgrind (Debian: valgrind) and bc.
solar=${1:-build/solar}
here=$(dirname "$0")
dev=$here/../devices/h100-sxm.json
command -v valgrind >/dev/null || { echo "bench/examples_instr.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
minstr() {
  SOLAR_TIME_LIMIT=0 valgrind --tool=callgrind --callgrind-out-file="$t/cg" "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : //p' | awk '{ printf "%.1f", $1 / 1e6 }'
}
echo "| example | default sizes: M instructions | every param /8 | every param x16 |"
echo "|---|---|---|---|"
for f in "$here"/../examples/*.air; do
  name=$(basename "$f" .air)
  big="" small=""
  for p in $(sed -n 's/^param \(.*\);.*/\1/p' "$f" | tr ',' '\n' |
             sed -n 's/ *\([A-Za-z_][A-Za-z0-9_]*\) *= *\([0-9][0-9]*\).*/\1=\2/p'); do
    big="$big -D ${p%%=*}=$((${p#*=} * 16))"
    v=$((${p#*=} / 8))
    small="$small -D ${p%%=*}=$((v < 1 ? 1 : v))"
  done
  i1=$(minstr "$solar" analyze --device "$dev" "$f")
  # shellcheck disable=SC2086
  i2=$(minstr "$solar" analyze --device "$dev" $small "$f")
  # shellcheck disable=SC2086
  i3=$(minstr "$solar" analyze --device "$dev" $big "$f")
  echo "| $name | $i1 | $i2 | $i3 |"
done
