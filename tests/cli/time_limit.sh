#!/bin/sh
# A hostile program (60000 kernels rewriting one tmp tensor: its checks alone take seconds, so
# validate's limit fires before it reaches the harness, however loaded the machine; 20000 took
# about 1 s and raced the harness's own failure under ctest -j2) must end with the time-limit error, exit 2 (a limit, not an error in the input: report
# reads exit 1 as a failed gate), in about SOLAR_TIME_LIMIT seconds.
solar=$1
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
{
  printf 'air 1;\nparam N = 64;\nin a[N]: f32;\nout b[N]: f32;\ntmp t[N]: f32;\n'
  printf 'for i in 0..N { t[i] = a[i]; }\n'
  k=0; while [ $k -lt 60000 ]; do printf 'for i in 0..N { t[i] = t[i] + 1; }\n'; k=$((k + 1)); done
  printf 'for i in 0..N { b[i] = t[i]; }\n'
} >"$t/many.air"
start=$(date +%s)
SOLAR_TIME_LIMIT=1 "$solar" check "$t/many.air" >"$t/out" 2>"$t/err"
rc=$?
took=$(( $(date +%s) - start ))
fail=0
[ "$rc" = 2 ] || { echo "exit status $rc, expected 2"; fail=1; }
grep -q "exceeded its time limit" "$t/err" || { echo "no time-limit message:"; cat "$t/err"; fail=1; }
[ "$took" -le 5 ] || { echo "took $took s with a 1 s limit"; fail=1; }
# validate runs the same analysis in-process: it obeys the limit too (it used to run unlimited;
# `timeout` ends this test if it hangs again).
start=$(date +%s)
SOLAR_TIME_LIMIT=1 timeout 60 "$solar" validate "$t/many.air" --ref /dev/null >"$t/out" 2>"$t/err"
rc=$?
took=$(( $(date +%s) - start ))
[ "$rc" = 2 ] || { echo "validate: exit status $rc, expected 2"; fail=1; }
grep -q "exceeded its time limit" "$t/err" || { echo "validate: no time-limit message:"; cat "$t/err"; fail=1; }
[ "$took" -le 5 ] || { echo "validate took $took s with a 1 s limit"; fail=1; }
# ... but not while the reference runs (it has --timeout): a harness that takes 3 s under a
# 1 s limit ends with its own failure, not the time limit.
printf '#!/bin/sh\nsleep 3\nexit 3\n' >"$t/slow_python"
chmod +x "$t/slow_python"
printf 'air 1;\nin a[4]: f32;\nout b[4]: f32;\nfor i in 0..4 { b[i] = a[i]; }\n' >"$t/small.air"
SOLAR_TIME_LIMIT=1 SOLAR_PYTHON="$t/slow_python" SOLAR_HARNESS=/dev/null \
  "$solar" validate "$t/small.air" --ref /dev/null >"$t/out" 2>"$t/err"
rc=$?
[ "$rc" = 2 ] || { echo "validate with a slow harness: exit status $rc, expected 2"; fail=1; }
grep -q "the reference harness failed (exit 3)" "$t/err" && ! grep -q "time limit" "$t/err" ||
  { echo "validate with a slow harness: the limit counted the harness's time:"; cat "$t/err"; fail=1; }
# A bad value is reported and the default applies.
SOLAR_TIME_LIMIT=abc "$solar" check "$t/small.air" 2>"$t/err2"
rc=$?
[ "$rc" = 0 ] || { echo "exit status $rc with SOLAR_TIME_LIMIT=abc, expected 0"; fail=1; }
grep -q "SOLAR_TIME_LIMIT must be a number of seconds" "$t/err2" ||
  { echo "no message for a bad SOLAR_TIME_LIMIT:"; cat "$t/err2"; fail=1; }
exit $fail
