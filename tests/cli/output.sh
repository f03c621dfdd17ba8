#!/bin/sh
# Nothing lost (cli/output.c): one case per ctest.
#   full       every command writing to a full device (stdout > /dev/full, -o /dev/full) exits 2
#              with `solar: writing <stdout>|FILE: No space left on device`; a regular
#              file over the file-size limit keeps its old content
#   input      -o (or report's --md/--json/--svg) naming an input is refused, exit 2, input intact
#   interrupt  the time limit, SIGINT, SIGTERM or an input error during a run leaves the old -o
#              file intact, no temp file; a finished run replaces it (mode kept, links followed)
#   concurrent two runs on one -o leave one run's whole output
solar=$1 case=$2 root=$3
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
E=$root/examples D=$root/devices/h100-sxm.json
no() { echo "FAIL: $*"; fail=1; }
# expect RC MESSAGE-PATTERN COMMAND...: exit status and stderr
expect() {
  want=$1 pat=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  [ "$rc" = "$want" ] || no "$*: exit $rc, expected $want; stderr: $(cat "$t/err")"
  grep -q -- "$pat" "$t/err" || no "$*: stderr lacks '$pat': $(cat "$t/err")"
}
# A program whose analysis takes far longer than 1 s (tests/cli/time_limit.sh).
slow() {
  printf 'air 1;\nparam N = 64;\nin a[N]: f32;\nout b[N]: f32;\ntmp t[N]: f32;\n'
  printf 'for i in 0..N { t[i] = a[i]; }\n'
  k=0; while [ $k -lt 20000 ]; do printf 'for i in 0..N { t[i] = t[i] + 1; }\n'; k=$((k + 1)); done
  printf 'for i in 0..N { b[i] = t[i]; }\n'
}

case $case in
full)
  cp "$root/tests/report/"*.json "$root/tests/report/"*.csv "$t/" 2>/dev/null
  sed "s#\.\./\.\./#$root/#g" "$root/tests/report/manifest.json" >"$t/manifest.json"
  while read -r args; do
    # shellcheck disable=SC2086
    set -- $args
    "$solar" "$@" >/dev/full 2>"$t/err"; rc=$?
    [ "$rc" = 2 ] || no "solar $args >/dev/full: exit $rc, expected 2"
    # the message as text, or as a JSON line where the command writes JSON (--json)
    grep -Eq '(solar: |"message":")writing <stdout>: No space left on device' "$t/err" ||
      no "solar $args >/dev/full: stderr: $(cat "$t/err")"
    case $1 in report) o="--md" ;; *) o="-o" ;; esac
    "$solar" "$@" $o /dev/full >"$t/out" 2>"$t/err"; rc=$?
    [ "$rc" = 2 ] || no "solar $args $o /dev/full: exit $rc, expected 2"
    grep -Eq '(solar: |"message":")writing /dev/full: No space left on device' "$t/err" ||
      no "solar $args $o /dev/full: stderr: $(cat "$t/err")"
  done <<EOF
count $E/mlp_block.air
count --json $E/mlp_block.air
count --symbolic $E/matmul_f32.air
analyze --device $D $E/mlp_block.air
analyze --device $D --format csv $E/mlp_block.air
provision --device $D --target-time 1ms $E/mlp_block.air
sweep --device $D --vary dram_bw=0.5x..8x --steps 1000 $E/mlp_block.air
graph $E/mlp_block.air
fmt $E/mlp_block.air
device show $D
report $t/manifest.json
EOF
  for a in --help --version "count --help"; do
    # shellcheck disable=SC2086
    "$solar" $a >/dev/full 2>"$t/err"; rc=$?
    [ "$rc" = 2 ] && grep -q 'writing <stdout>: No space left' "$t/err" ||
      no "solar $a >/dev/full: exit $rc: $(cat "$t/err")"
  done
  # the sweep's and the report's further outputs
  expect 2 'writing /dev/full: No space left' "$solar" sweep --device "$D" --vary dram_bw=1x..2x \
    --svg /dev/full "$E/mlp_block.air"
  expect 2 'writing /dev/full: No space left' "$solar" report "$t/manifest.json" --json /dev/full
  expect 2 'writing /dev/full: No space left' "$solar" report "$t/manifest.json" --svg /dev/full
  # a regular file that cannot grow (the file-size limit: EFBIG, as ENOSPC on a full disk): the
  # write error is reported, the old file stays whole, no temporary file is left
  echo "old content" >"$t/big.csv"
  (trap '' XFSZ; ulimit -f 2; exec "$solar" sweep --device "$D" --vary dram_bw=0.5x..8x \
    --steps 1000 "$E/mlp_block.air" -o "$t/big.csv") 2>"$t/err"; rc=$?
  [ "$rc" = 2 ] || no "sweep -o over the file-size limit: exit $rc, expected 2"
  grep -q "solar: writing $t/big.csv: File too large" "$t/err" || no "no message: $(cat "$t/err")"
  [ "$(cat "$t/big.csv")" = "old content" ] || no "big.csv lost its old content"
  [ -z "$(ls -A "$t" | grep '^\.big')" ] || no "temporary file left: $(ls -A "$t")"
  # a failed output takes the others with it: nothing half-written
  "$solar" report "$t/manifest.json" --md "$t/r.md" --json /dev/full >/dev/null 2>&1
  [ -e "$t/r.md" ] && no "report --md kept r.md although --json failed"
  ;;
input)
  cp "$E/mlp_block.air" "$t/p.air"; cp "$D" "$t/dev.json"; cp "$t/p.air" "$t/p.orig"
  printf '{"schema": 1, "base": "dev.json", "name": "derived"}\n' >"$t/derived.json"
  cp "$t/derived.json" "$t/derived.orig"; cp "$t/dev.json" "$t/dev.orig"
  expect 2 "refusing to write $t/p.air: it is an input" "$solar" fmt "$t/p.air" -o "$t/p.air"
  expect 2 "refusing to write $t/p.air: it is an input" "$solar" count "$t/p.air" -o "$t/p.air"
  ln -s p.air "$t/link.air"
  expect 2 "refusing to write $t/link.air: it is the input $t/p.air" \
    "$solar" count "$t/p.air" -o "$t/link.air"
  expect 2 "refusing to write $t/dev.json: it is an input" \
    "$solar" analyze --device "$t/dev.json" "$t/p.air" -o "$t/dev.json"
  expect 2 "refusing to write $t/dev.json: it is an input" \
    "$solar" analyze --device "$t/derived.json" "$t/p.air" -o "$t/dev.json"
  expect 2 "refusing to write $t/derived.json: it is an input" \
    "$solar" device show "$t/derived.json" -o "$t/derived.json"
  printf '{"entries": [{"air": "p.air", "device": "dev.json", "measured": "1ms"}]}\n' >"$t/m.json"
  cp "$t/m.json" "$t/m.orig"
  expect 2 "refusing to write $t/m.json: it is an input" "$solar" report "$t/m.json" --md "$t/m.json"
  expect 2 "refusing to write $t/p.air: it is an input" "$solar" report "$t/m.json" --json "$t/p.air"
  expect 2 "refusing to write $t/dev.json: it is an input" "$solar" report "$t/m.json" --svg "$t/dev.json"
  expect 2 "is named by two outputs" "$solar" report "$t/m.json" --md "$t/a" --json "$t/a"
  for f in p dev derived m; do
    ext=json; [ $f = p ] && ext=air
    cmp -s "$t/$f.$ext" "$t/$f.orig" || no "$f.$ext was changed"
  done
  ls -a "$t" | grep -q '^\.' && ls -a "$t" | grep '^\.[^.]' && no "temporary files left"
  ;;
interrupt)
  slow >"$t/slow.air"
  echo "old content" >"$t/out.txt"; chmod 640 "$t/out.txt"
  SOLAR_TIME_LIMIT=1 "$solar" count "$t/slow.air" -o "$t/out.txt" 2>"$t/err"; rc=$?
  [ "$rc" != 0 ] || no "time limit: exit 0"
  grep -q "exceeded its time limit" "$t/err" || no "time limit: no message: $(cat "$t/err")"
  [ "$(cat "$t/out.txt")" = "old content" ] || no "time limit: out.txt lost its content"
  # SIGINT and SIGTERM once the run is writing (its temporary file exists).  A background job
  # of a script starts with SIGINT ignored (and solar keeps it so): python restores it first.
  for sig in 2 15; do
    python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' \
      "$solar" count "$t/slow.air" -o "$t/out.txt" 2>/dev/null & pid=$!
    n=0
    while [ -z "$(ls -A "$t" | grep '^\.out.txt')" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    [ $n -lt 600 ] || no "signal $sig: no temporary file after 60 s"
    kill -$sig $pid; wait $pid; rc=$?
    [ "$rc" = $((128 + sig)) ] || no "signal $sig: exit $rc, expected $((128 + sig)) (killed by it)"
    [ "$(cat "$t/out.txt")" = "old content" ] || no "signal $sig: out.txt lost its content"
  done
  left=$(ls -A "$t" | grep '^\.out.txt')
  [ -z "$left" ] || no "temporary files left: $left"
  # a run that fails on its input leaves it too
  printf 'air 1;\nin a[4]: f32;\nout b[4]: f32;\nfor i in 0..4 { b[i] = a[i + 1]; }\n' >"$t/bad.air"
  "$solar" count "$t/bad.air" -o "$t/out.txt" 2>/dev/null; rc=$?
  [ "$rc" = 1 ] || no "count of a bad program: exit $rc, expected 1"
  [ "$(cat "$t/out.txt")" = "old content" ] || no "error run: out.txt lost its content"
  # a finished run replaces it, keeping its mode
  "$solar" count "$E/mlp_block.air" -o "$t/out.txt" || no "count -o failed"
  grep -q "^mlp_block.air" "$t/out.txt" || no "out.txt not replaced: $(head -2 "$t/out.txt")"
  [ "$(stat -c %a "$t/out.txt")" = 640 ] || no "mode $(stat -c %a "$t/out.txt"), expected 640"
  # through a symbolic link, the file it names is replaced and the link stays
  ln -s out.txt "$t/link.txt"
  "$solar" count --json "$E/mlp_block.air" -o "$t/link.txt" || no "count -o link failed"
  [ -L "$t/link.txt" ] || no "link.txt is no longer a symbolic link"
  grep -q '"program"' "$t/out.txt" || no "out.txt not replaced through the link"
  ;;
concurrent)
  # the same analysis (so the runs overlap), outputs of different lengths
  "$solar" count --json "$E/attention_causal.air" >"$t/a.want"
  "$solar" count "$E/attention_causal.air" >"$t/b.want"
  i=0
  while [ $i -lt 10 ]; do
    "$solar" count --json "$E/attention_causal.air" -o "$t/o.json" & p1=$!
    "$solar" count "$E/attention_causal.air" -o "$t/o.json" & p2=$!
    wait $p1; wait $p2
    cmp -s "$t/o.json" "$t/a.want" || cmp -s "$t/o.json" "$t/b.want" ||
      { no "round $i: o.json is neither run's whole output"; break; }
    i=$((i + 1))
  done
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
