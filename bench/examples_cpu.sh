#!/bin/sh
# CPU time of `solar analyze --device devices/h100-sxm.json` on every example, at its default
# sizes, with every param divided by 8 (at least 1) and with every param scaled 16x (issue 11's
# target: every example under 20 ms at any size; small sizes once met ISL's enumeration).
# Prints a Markdown table; each figure is perf's task-clock (CPU ms, user + sys) of the whole
# process, the mean of RUNS runs (default 5).
#   sh bench/examples_cpu.sh [build/solar]
# Needs `perf` (Debian: linux-perf).  CPU time, not wall time: on a shared machine the wall
# time of one run can be twice its CPU time.
solar=${1:-build/solar}
runs=${RUNS:-5}
here=$(dirname "$0")
command -v perf >/dev/null || { echo "bench/examples_cpu.sh: needs perf (apt-get install linux-perf)" >&2; exit 2; }
cpu_ms() {
  perf stat -x, -e task-clock -r "$runs" "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { printf "%.1f", $1 }'
}
# shellcheck source=bench/each_example.sh
. "$here/each_example.sh"
each_example "$solar" "$here" cpu_ms "CPU ms"
