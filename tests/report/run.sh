#!/bin/sh
# Tests of `solar report` (and of the SVG charts of report and sweep), one case per ctest:
#   golden           manifest.json -> expected/report.md and expected/report.json
#   gate-ok          --max-headroom 1000: exit 0
#   gate-headroom    --max-headroom 100: exit 1 (two models are over)
#   gate-regression  --baseline baseline.json --max-regression 0.1: exit 1, expected/regression.md
#   baseline-ok      its own JSON report as the baseline, --max-regression 0: exit 0
#   bad-manifests    every bad/*.json (not *_bad.json): exit 2, stderr = bad/NAME.err
#   bad-baselines    every bad/base_NAME_bad.json as --baseline: exit 2, stderr = bad/base_NAME.err
#   gate-baseline-null, gate-zero-bound   headrooms that cannot be compared fail the gate
#   svg              the report's and sweep's charts are well-formed XML and rsvg-convert renders them
# Runs in this folder, so paths in the outputs are the manifest's own.  UPDATE=1 rewrites the
# expected files instead of comparing.
solar=$1 case=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
cd "$here" || exit 1
fail=0

expect_rc() { # expected actual what
  if [ "$1" != "$2" ]; then echo "$3: exit status $2, expected $1"; cat "$t/err"; fail=1; fi
}
compare() { # expected-file actual-file
  if [ "${UPDATE:-0}" = 1 ]; then cp "$2" "$1"; return; fi
  diff -u "$1" "$2" || fail=1
}
xml_ok() {
  if command -v xmllint >/dev/null 2>&1; then xmllint --noout "$1" || fail=1
  else python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" || fail=1; fi
}
render() {
  if ! command -v rsvg-convert >/dev/null 2>&1; then
    echo "rsvg-convert is missing (Debian: librsvg2-bin; scripts/deps.sh installs it)"; fail=1; return
  fi
  rsvg-convert "$1" -o "$1.png" || { echo "rsvg-convert failed on $1"; fail=1; return; }
  [ -s "$1.png" ] || { echo "empty PNG from $1"; fail=1; }
}

case $case in
golden)
  "$solar" report manifest.json --max-headroom 1000 --md "$t/report.md" --json "$t/report.json" \
    >"$t/out" 2>"$t/err"
  expect_rc 0 $? golden
  [ -s "$t/out" ] && { echo "unexpected stdout with --md:"; cat "$t/out"; fail=1; }
  compare expected/report.md "$t/report.md"
  compare expected/report.json "$t/report.json"
  ;;
gate-ok)
  "$solar" report manifest.json --max-headroom 1000 >"$t/out" 2>"$t/err"
  expect_rc 0 $? gate-ok
  grep -q '^\*\*PASS\*\*' "$t/out" || { echo "no PASS line"; fail=1; }
  ;;
gate-headroom)
  "$solar" report manifest.json --max-headroom 100 >"$t/out" 2>"$t/err"
  expect_rc 1 $? gate-headroom
  grep -q '^\*\*FAIL\*\*: 2 of 4 models' "$t/out" || { echo "no FAIL line:"; cat "$t/out"; fail=1; }
  ;;
gate-regression)
  "$solar" report manifest.json --baseline baseline.json --max-regression 0.1 >"$t/out" 2>"$t/err"
  expect_rc 1 $? gate-regression
  compare expected/regression.md "$t/out"
  ;;
baseline-ok)
  "$solar" report manifest.json --baseline expected/report.json --max-regression 0 \
    --max-headroom 1000 >"$t/out" 2>"$t/err"
  expect_rc 0 $? baseline-ok
  ;;
bad-manifests)
  cd bad || exit 1
  for m in *.json; do
    case $m in *_bad.json) continue ;; esac
    name=${m%.json}
    "$solar" report "$m" >"$t/out" 2>"$t/err"
    expect_rc 2 $? "$m"
    compare "$name.err" "$t/err"
  done
  ;;
svg)
  "$solar" report manifest.json --svg "$t/report.svg" >/dev/null 2>"$t/err"
  expect_rc 0 $? "report --svg"
  "$solar" sweep "$root/examples/mlp_block.air" --device "$root/devices/h100-sxm.json" \
    --vary dram_bw=0.25x..8x --target-time 600us --svg "$t/sweep1.svg" >/dev/null 2>"$t/err"
  expect_rc 0 $? "sweep, one figure"
  "$solar" sweep "$root/examples/mlp_block.air" --device "$root/devices/h100-sxm.json" \
    --vary dram_bw=0.1x..10x --vary l2=16MB..256MB --steps 5 --svg "$t/sweep2.svg" \
    >/dev/null 2>"$t/err"
  expect_rc 0 $? "sweep, two figures"
  for s in "$t"/*.svg; do
    xml_ok "$s"
    grep -q '<svg xmlns="http://www.w3.org/2000/svg" version="1.1"' "$s" || { echo "$s: not SVG 1.1"; fail=1; }
    render "$s"
  done
  ;;
ncu-h200)
  # Real Nsight Compute exports from an H200 (2 forward passes each, bench/ncu_forward.py;
  # 265 columns, a "ns" unit row, thousands separators); conv2d_3x3's cuDNN launches 4
  # kernels per pass for 1 AIR kernel, so only its total is used.
  cd ncu-h200 || exit 1
  "$solar" report manifest.json >"$t/out" 2>"$t/err"
  expect_rc 0 $? ncu-h200
  compare expected.md "$t/out"
  compare expected.err "$t/err"
  ;;
bad-baselines)
  # A baseline that cannot gate: duplicate names, a headroom of 0, negative or missing: exit 2.
  for b in bad/base_*_bad.json; do
    name=${b%_bad.json}
    "$solar" report manifest.json --baseline "$b" --max-regression 0.1 >"$t/out" 2>"$t/err"
    expect_rc 2 $? "$b"
    compare "$name.err" "$t/err"
  done
  ;;
gate-baseline-null)
  # A null headroom in the baseline (mlp_block) or now (softmax, unmeasured; the baseline says
  # 5x) cannot be compared: the regression gate fails those models rather than skip them.
  "$solar" report manifest.json --baseline baseline_null.json --max-regression 0.1 >"$t/out" 2>"$t/err"
  expect_rc 1 $? gate-baseline-null
  grep -q '^| mlp_block .*\*\*fail\*\*: the baseline has no headroom for this model (entries\[0\].headroom is null)' "$t/out" ||
    { echo "mlp_block not failed for its null baseline:"; cat "$t/out"; fail=1; }
  grep -q '^| softmax .*\*\*fail\*\*: no headroom now (no measured time), the baseline had 5x' "$t/out" ||
    { echo "softmax not failed for its missing headroom:"; cat "$t/out"; fail=1; }
  ;;
gate-zero-bound)
  # A measured program without work (all bounds 0 s) has no finite headroom: --max-headroom fails it.
  "$solar" report zero_bound.json --max-headroom 10 --json "$t/r.json" >"$t/out" 2>"$t/err"
  expect_rc 1 $? gate-zero-bound
  grep -q 'fail\*\*: the cache-aware bound is 0 s (no work to bound), so the headroom is unbounded' "$t/out" ||
    { echo "no unbounded-headroom reason:"; cat "$t/out"; fail=1; }
  grep -q '"status":.*"fail"' "$t/r.json" || { echo "JSON status is not fail"; fail=1; }
  ;;
below-sol)
  # The same export read as 8 passes: 43.8 us, below the fused bound of 58.4 us, which no run
  # can beat: the report must fail it rather than pass an impossible headroom.
  cd ncu-h200 || exit 1
  "$solar" report below_sol.json >"$t/out" 2>"$t/err"
  expect_rc 1 $? below-sol
  grep -q "below the speed of light" "$t/out" || { echo "no below-SOL reason:"; cat "$t/out"; fail=1; }
  ;;
*)
  echo "unknown case $case"; exit 2 ;;
esac
exit $fail
