#!/bin/sh
# Time and size bounds of `solar triage` (docs/triage.md "Time and files"), one case per ctest:
#   history    a 100k-line history: the ACI replay is one pass (search/triage.c), seconds, not
#              the minutes of refitting every prefix (tests/unit/test_triage.c: the same alpha)
#   time_limit SOLAR_TIME_LIMIT ends a hostile reference's analysis (exit 2, the message), as in
#              every other command, but not a slow translator (it has its own limit)
#   fifo       a FIFO named cand_x.air in a pool, or as a descriptor's "base": an error that
#              names the file, never a run blocked forever
# `timeout` ends a case that hangs (what each did before).
solar=$1 case=$2 root=$3
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
D=$root/devices/h200-sxm.json P=$root/tests/triage/pools
no() { echo "FAIL: $*"; fail=1; }

case $case in
history)
  # candidates of two pools, op classes on some lines, a few warm lines (ignored)
  awk -v n=100000 -v p="$P" 'BEGIN {
    srand(7); split("other/cand_1.air scale/ref.air scale/cand_fused.air scale/cand_twopass.air scale/cand_threepass.air scale/cand_triton.py", c, " ")
    for (i = 0; i < n; i++) {
      x = c[1 + int(rand() * 6)]; ms = 0.9 + rand() * rand() * 2
      oc = rand() < 0.3 ? ", \"op_class\": \"" (rand() < 0.5 ? "norm" : "gemm") "\"" : ""
      printf "{\"candidate\": \"%s/%s\", \"device\": \"h200-sxm\", \"ms\": %.6f, \"l2\": \"%s\"%s}\n", p, x, ms, rand() < 0.02 ? "warm" : "cold", oc
    } }' >"$t/h.jsonl"
  start=$(date +%s)
  SOLAR_TIME_LIMIT=60 timeout 120 "$solar" triage "$P/scale" --device "$D" --l2 cold \
    --cache "$t/cache" --history "$t/h.jsonl" --json >"$t/out.json" 2>"$t/err"
  rc=$? took=$(( $(date +%s) - start ))
  [ "$rc" = 0 ] || no "100k lines: exit $rc after $took s: $(cat "$t/err")"
  grep -q '"aci_steps":	9[0-9][0-9][0-9][0-9],' "$t/out.json" ||
    no "100k lines: $(grep aci_steps "$t/out.json")"
  echo "100k history lines: $took s"
  ;;
time_limit)
  mkdir "$t/slow" "$t/tr"
  # 60000 kernels rewriting one tmp: seconds of analysis (7 s of CPU time, measured)
  awk 'BEGIN { printf "air 1;\nparam N = 64;\nin a[N]: f32;\nout b[N]: f32;\ntmp t[N]: f32;\n"
    print "for i in 0..N { t[i] = a[i]; }"
    for (k = 0; k < 60000; k++) print "for i in 0..N { t[i] = t[i] + 1; }"
    print "for i in 0..N { b[i] = t[i]; }" }' >"$t/slow/ref.air"
  start=$(date +%s)
  SOLAR_TIME_LIMIT=1 timeout 60 "$solar" triage "$t/slow" --device "$D" --cache "$t/cache" \
    >"$t/out" 2>"$t/err"
  rc=$? took=$(( $(date +%s) - start ))
  [ "$rc" = 2 ] || no "hostile reference: exit $rc, expected 2 (after $took s)"
  grep -q "exceeded its time limit" "$t/err" || no "hostile reference: no time-limit message: $(cat "$t/err")"
  [ "$took" -le 10 ] || no "hostile reference: took $took s with a 1 s limit"
  # a translator that takes 3 s (and cannot read the file) under a 1 s limit: not the limit
  cp "$P/scale/ref.air" "$t/tr/ref.air"
  printf 'import torch\n' >"$t/tr/cand_slow.py"
  printf '#!/bin/sh\nsleep 3\necho "cannot read it" >&2\nexit 1\n' >"$t/slow_python"
  chmod +x "$t/slow_python"
  SOLAR_TIME_LIMIT=1 SOLAR_PYTHON="$t/slow_python" timeout 60 "$solar" triage "$t/tr" \
    --device "$D" --cache "$t/cache" >"$t/out" 2>"$t/err"
  rc=$?
  [ "$rc" = 0 ] || no "slow translator: exit $rc, expected 0: $(cat "$t/err")"
  grep -q "cand_slow.py: not translatable: cannot read it" "$t/out" ||
    no "slow translator: its failure is not the note: $(cat "$t/out" "$t/err")"
  # advise obeys the limit too
  SOLAR_TIME_LIMIT=1 timeout 60 "$solar" advise "$t/slow/ref.air" --device "$D" --measured 1ms \
    >"$t/out" 2>"$t/err"
  rc=$?
  [ "$rc" = 2 ] && grep -q "exceeded its time limit" "$t/err" ||
    no "advise on a hostile program: exit $rc: $(cat "$t/err")"
  ;;
fifo)
  mkdir "$t/pool"
  cp "$P/scale/ref.air" "$t/pool/ref.air"
  mkfifo "$t/pool/cand_x.air"
  timeout 20 "$solar" triage "$t/pool" --device "$D" --cache "$t/cache" >"$t/out" 2>"$t/err"
  rc=$?
  [ "$rc" = 1 ] || no "FIFO candidate: exit $rc, expected 1"
  grep -qx "solar: $t/pool/cand_x.air: cannot read: not a regular file (a FIFO)" "$t/err" ||
    no "FIFO candidate: $(cat "$t/err")"
  # a manifest naming a FIFO as a candidate's AIR
  rm "$t/pool/cand_x.air"
  mkfifo "$t/pool/x.air"
  printf '{"reference": "ref.air", "candidates": [{"file": "x.air"}]}\n' >"$t/pool/m.json"
  timeout 20 "$solar" triage "$t/pool/m.json" --device "$D" --cache "$t/cache" >"$t/out" 2>"$t/err"
  rc=$?
  [ "$rc" = 1 ] && grep -q "x.air: cannot read: not a regular file (a FIFO)" "$t/err" ||
    no "FIFO in a manifest: exit $rc: $(cat "$t/err")"
  # a descriptor whose base is a FIFO: every command that loads it
  mkfifo "$t/base.json"
  printf '{"schema": 1, "base": "base.json", "name": "over a FIFO"}\n' >"$t/dev.json"
  for cmd in "analyze $root/examples/softmax.air" "triage $P/scale --cache $t/cache"; do
    # shellcheck disable=SC2086
    timeout 20 "$solar" $cmd --device "$t/dev.json" >"$t/out" 2>"$t/err"
    rc=$?
    [ "$rc" = 2 ] || no "$cmd, FIFO base: exit $rc, expected 2"
    grep -q "dev.json: base: cannot read '$t/base.json': not a regular file (a FIFO)" "$t/err" ||
      no "$cmd, FIFO base: $(cat "$t/err")"
  done
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
