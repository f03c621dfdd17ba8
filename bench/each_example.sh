# shellcheck shell=sh
# Sourced by bench/examples_cpu.sh and bench/examples_instr.sh: the table of one measure of
# `solar analyze --device devices/h100-sxm.json` on every example at its default sizes, with
# every param divided by 8 (at least 1) and with every param scaled 16x.
#   each_example SOLAR BENCH_DIR MEASURE UNIT   (MEASURE CMD...: prints one figure for CMD)
each_example() {
  solar=$1 here=$2 measure=$3 unit=$4
  dev=$here/../devices/h100-sxm.json
  echo "| example | default sizes: $unit | every param /8: $unit | every param x16: $unit |"
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
    t1=$("$measure" "$solar" analyze --device "$dev" "$f")
    # shellcheck disable=SC2086
    t2=$("$measure" "$solar" analyze --device "$dev" $small "$f")
    # shellcheck disable=SC2086
    t3=$("$measure" "$solar" analyze --device "$dev" $big "$f")
    echo "| $name | $t1 | $t2 | $t3 |"
  done
}
