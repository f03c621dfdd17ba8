#!/bin/sh
# Instructions (millions, callgrind) of `solar analyze --device devices/h100-sxm.json` on every
# example at its default sizes, with every param divided by 8 (at least 1) and with every param
# scaled 16x: the figure to compare across changes, since it does not depend on the machine's
# load (bench/examples_cpu.sh gives the CPU time).  Prints a Markdown table.
#   sh bench/examples_instr.sh [build/solar]
# Needs valgrind (Debian: valgrind).
solar=${1:-build/solar}
here=$(dirname "$0")
command -v valgrind >/dev/null || { echo "bench/examples_instr.sh: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
minstr() {
  SOLAR_TIME_LIMIT=0 valgrind --tool=callgrind --callgrind-out-file="$t/cg" "$@" 2>&1 >/dev/null |
    sed -n 's/.*Collected : //p' | awk '{ printf "%.1f", $1 / 1e6 }'
}
# shellcheck source=bench/each_example.sh
. "$here/each_example.sh"
each_example "$solar" "$here" minstr "M instructions"
