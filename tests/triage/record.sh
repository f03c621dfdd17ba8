#!/bin/sh
# `solar triage --record` and the CSV output (docs/triage.md "History and formats"):
#   record  a time below the candidate's lower bound is refused as advise refuses --measured
#           (exit 1, the history unchanged), --wrong records it; a history that is an input
#           (the candidate itself) is refused, exit 2
#   csv     names with a comma, a double quote or a newline are quoted per RFC 4180: every row
#           reads back with its 12 fields
solar=$1 case=$2 root=$3
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
D=$root/devices/h200-sxm.json P=$root/tests/triage/pools/scale
no() { echo "FAIL: $*"; fail=1; }

case $case in
record)
  rec() { "$solar" triage --record "$t/h.jsonl" --device h200-sxm --l2 cold --cache "$t/cache" "$@" >"$t/out" 2>"$t/err"; }
  rec --candidate "$P/cand_fused.air" --ms 2
  [ $? = 0 ] || no "a plausible time: $(cat "$t/err")"
  cp "$t/h.jsonl" "$t/h.orig"
  for c in cand_fused.air cand_triton.py; do # own AIR; no AIR (the problem's bound)
    rec --candidate "$P/$c" --ms 0.0001
    rc=$?
    [ "$rc" = 1 ] || no "$c at 0.1 us: exit $rc, expected 1"
    grep -q "$c: --ms: measured 1e-07 s is .*x the problem's cache-aware bound (.* s): below the speed of light, so either the benchmark is broken" "$t/err" ||
      no "$c at 0.1 us: $(cat "$t/err")"
  done
  cmp -s "$t/h.jsonl" "$t/h.orig" || no "a refused time changed the history"
  rec --candidate "$P/cand_fused.air" --ms 0.0001 --wrong
  [ $? = 0 ] && [ "$(wc -l <"$t/h.jsonl")" = 2 ] || no "--wrong below the bound: $(cat "$t/err")"
  cp "$P/cand_fused.air" "$t/c.air"
  cp "$t/c.air" "$t/c.orig"
  "$solar" triage --record "$t/c.air" --candidate "$t/c.air" --device h200-sxm --ms 2 2>"$t/err"
  rc=$?
  [ "$rc" = 2 ] && grep -q "refusing to write $t/c.air: it is an input of this run" "$t/err" ||
    no "a history that is the candidate: exit $rc: $(cat "$t/err")"
  cmp -s "$t/c.air" "$t/c.orig" || no "the candidate was appended to"
  ;;
csv)
  mkdir "$t/pool"
  cp "$P/ref.air" "$t/pool/ref.air"
  cp "$P/cand_fused.air" "$t/pool/cand_a,b.air"
  cp "$P/cand_twopass.air" "$t/pool/cand_q\"x
y.air"
  "$solar" triage "$t/pool" --device "$D" --cache "$t/cache" --format csv >"$t/out.csv" 2>"$t/err" ||
    no "triage --format csv: $(cat "$t/err")"
  python3 -c "
import csv, sys
rows = list(csv.reader(open('$t/out.csv', newline='')))
assert [len(r) for r in rows] == [12, 12, 12], [len(r) for r in rows]
assert sorted(r[1] for r in rows[1:]) == ['cand_a,b.air', 'cand_q\"x\ny.air'], rows
" || no "the CSV does not read back: $(cat "$t/out.csv")"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
