#!/bin/sh
# ISL's operation budget is per kernel (analysis/model.c, solar_isl_budget_kernel), not per run:
# a transformer-like program (matmul, softmax, matmul, repeated: 30 kernels here) is analysed
# under a budget of 100000 operations, which each kernel fits but the whole program exceeds
# many times over (with one budget for the run it failed even at 1000000).  The counts must be
# those of the default budget.  SOLAR_ISL_MAX_OPERATIONS exists for this test (docs/air.md).
solar=$1
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
{
  printf 'air 1;\nparam S = 64, D = 64;\nin x[S, D], w[D, D], v[D, D]: f32;\nout y[S, D]: f32;\n'
  l=0; while [ $l -lt 10 ]; do
    printf 'tmp h%d[S, D], p%d[S, D], a%d[S, D]: f32;\ntmp m%d[S], z%d[S]: f32;\n' $l $l $l $l $l
    l=$((l + 1))
  done
  l=0; src=x
  while [ $l -lt 10 ]; do
    dst=a$l; [ $l = 9 ] && dst=y
    printf 'kernel mm1_%d {\n  for i in 0..S, j in 0..D { h%d[i, j] = 0; for k in 0..D { h%d[i, j] += %s[i, k] * w[k, j]; } }\n}\n' $l $l $l $src
    printf 'kernel softmax_%d {\n  for i in 0..S {\n    m%d[i] = -inf; for j in 0..D { m%d[i] max= h%d[i, j]; }\n' $l $l $l $l
    printf '    z%d[i] = 0; for j in 0..D { z%d[i] += exp(h%d[i, j] - m%d[i]); }\n' $l $l $l $l
    printf '    for j in 0..D { p%d[i, j] = exp(h%d[i, j] - m%d[i]) / z%d[i]; }\n  }\n}\n' $l $l $l $l
    printf 'kernel mm2_%d {\n  for i in 0..S, j in 0..D { %s[i, j] = 0; for k in 0..D { %s[i, j] += p%d[i, k] * v[k, j]; } }\n}\n' $l $dst $dst $l
    src=a$l; l=$((l + 1))
  done
} >"$t/tf.air"
fail=0
"$solar" count "$t/tf.air" >"$t/want" 2>"$t/err0" || { echo "default budget failed:"; cat "$t/err0"; fail=1; }
SOLAR_ISL_MAX_OPERATIONS=100000 "$solar" count "$t/tf.air" >"$t/got" 2>"$t/err"
rc=$?
[ "$rc" = 0 ] || { echo "exit status $rc under a per-kernel budget of 100000:"; cat "$t/err"; fail=1; }
cmp -s "$t/want" "$t/got" || { echo "counts differ from the default budget's:"; diff "$t/want" "$t/got" | head; fail=1; }
# A budget too small for one kernel still ends in a clear error, not a wrong count.
SOLAR_ISL_MAX_OPERATIONS=1000 "$solar" count "$t/tf.air" >"$t/out" 2>"$t/err"
rc=$?
[ "$rc" = 1 ] || { echo "exit status $rc under a budget of 1000, expected 1"; fail=1; }
grep -q "ISL operation limit" "$t/err" || { echo "no operation-limit message:"; cat "$t/err"; fail=1; }
exit $fail
