#!/bin/sh
# Every CSV solar writes (analyze, sweep, triage) is RFC 4180: a field with a comma, a quote, a
# CR or an LF is quoted with its quotes doubled (solar_fmt_csv_field, report/format.h), so
# Python's csv module reads each row back with the header's number of fields and the text as
# it was.  A triage candidate named 'cand_a,b "q".air' split its row before.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
D=$root/devices/h200-sxm.json
mkdir "$t/pool"
cp "$root/tests/triage/pools/other/ref.air" "$t/pool/"
cp "$root/tests/triage/pools/other/cand_1.air" "$t/pool/cand_a,b \"q\".air"
run() { # out-file command...
  o=$1; shift
  "$solar" "$@" >"$o" 2>"$t/err" || { echo "$*: exit $?"; cat "$t/err"; exit 1; }
}
run "$t/triage.csv" triage "$t/pool" --device "$D" --format csv
run "$t/analyze.csv" analyze "$root/examples/mlp_block.air" --device "$root/devices/h200-measured.json" \
  --format csv --ceilings both
run "$t/sweep.csv" sweep "$root/examples/mlp_block.air" --device "$D" --vary dram_bw=1x..2x \
  --vary l2=16MB..64MB --steps 2 --format csv
python3 - "$t" <<'PY'
import csv, os, sys
t = sys.argv[1]
for name in ("triage.csv", "analyze.csv", "sweep.csv"):
    with open(os.path.join(t, name), newline="") as f:
        rows = list(csv.reader(f, strict=True))
    assert len(rows) > 1, (name, rows)
    for r in rows[1:]:
        assert len(r) == len(rows[0]), (name, rows[0], r)
names = [r[1] for r in csv.reader(open(os.path.join(t, "triage.csv"), newline=""))][1:]
assert names == ['cand_a,b "q".air'], names
PY
