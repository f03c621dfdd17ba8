#!/bin/sh
# solar shard and the validation of programs with a mesh (docs/shard.md, docs/validate.md
# "Programs on many GPUs"): each case shards a translated model, checks the collectives it
# gets, validates every rank against the whole PyTorch model on the CPU, and checks that a
# wrong sharded program FAILs.
#   run.sh SOLAR ROOT PYTHON CASE     CASE: tp_forward, tp_train, dp_train, hand, errors
set -u
solar=$1 root=$2 py=$3 case=$4
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail=0
say() { echo "$*"; fail=1; }
export SOLAR_PYTHON="$py"
run() { # the command's output in $t/out, $t/err; its status in $rc
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  grep -q Traceback "$t/err" && say "$*: traceback"
}
expect() { # want-status what
  [ "$rc" = "$1" ] || { say "$2: exit $rc, expected $1"; cat "$t/err" "$t/out" | tail -20; }
}
collectives() { # file: the collectives' lines, one per line
  sed -n 's/.*{ \(all_reduce([^)]*) [A-Za-z0-9_]*\); }/\1/p' "$1"
}
# The training-step wrapper of a model at its own sizes (translate's, solar_translate.validate):
# the reference of a translated training step whose loss is LOSS.
wrapper() { # model.py loss out.py [NAME=V ...]
  m=$1 loss=$2 out=$3; shift 3
  PYTHONPATH="$root/translate" "$py" - "$m" "$loss" "$out" "$@" <<'PY'
import sys
from solar_translate.validate import wrapper
m, loss, out, *sizes = sys.argv[1:]
small = {k: int(v) for k, v in (s.split("=") for s in sizes)}
open(out, "w").write(wrapper(m, small, "torch", {"loss": loss, "optimizer": "adamw"}))
PY
}
tiny=$root/tests/shard/llama-tiny.json
case $case in
tp_forward)
  run "$solar" translate --hf "$tiny" --batch 1 --seq 5 --no-validate -o "$t/l.air"; expect 0 translate
  run "$solar" shard "$t/l.air" --mesh tp=8 -o "$t/tp.air"; expect 0 shard
  [ "$(collectives "$t/tp.air" | wc -l)" = 2 ] ||
    say "tp=8 forward: $(collectives "$t/tp.air" | wc -l) all-reduces, Megatron has 2 per layer"
  grep -q "mlp_down_proj_weight\[HIDDEN, (INTER // 8)\]: bf16 split(tp, 1);" "$t/tp.air" ||
    say "down_proj is not row parallel: $(grep down_proj_weight "$t/tp.air" | head -1)"
  run "$solar" validate "$t/tp.air" --ref "$t/l.py"; expect 0 "validate tp=8"
  tail -n 1 "$t/out" | grep -qx PASS || say "validate tp=8: not PASS"
  # without the attention's all-reduce, the ranks' sums are never added: FAIL
  grep -v "self_attn_o_proj_linear_all_reduce_tp" "$t/tp.air" >"$t/bad.air"
  run "$solar" validate "$t/bad.air" --ref "$t/l.py"; expect 1 "validate without an all-reduce"
  run "$solar" analyze "$t/tp.air" --device hgx-h200-8 --json; expect 0 analyze
  "$py" - "$t/out" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
c = j["collectives"]
assert len(c) == 2 and all(x["op"] == "all_reduce" and x["axis"] == "tp" and x["ranks"] == 8 for x in c), c
# 5 tokens x 96 bf16 per all-reduce: 960 bytes, S / B over NVLS
assert all(x["bytes"] == 960 for x in c), c
assert j["system"]["ranks"] == 8
PY
  ;;
tp_train)
  run "$solar" translate --hf "$tiny" --batch 1 --seq 5 --train --optimizer adamw --no-validate \
    -o "$t/l.air"; expect 0 translate
  run "$solar" shard "$t/l.air" --mesh tp=8 -o "$t/tp.air"; expect 0 shard
  # Megatron: after o_proj and down_proj forward, and the input gradients of the attention's
  # and the MLP's column-parallel projections backward
  [ "$(collectives "$t/tp.air" | wc -l)" = 4 ] ||
    { say "tp=8 training step: not 4 all-reduces:"; collectives "$t/tp.air"; }
  wrapper "$t/l.py" output "$t/step.py"
  run "$solar" validate "$t/tp.air" --ref "$t/step.py"; expect 0 "validate tp=8 training step"
  tail -n 1 "$t/out" | grep -qx PASS || say "validate tp=8 training step: not PASS"
  ;;
dp_train)
  run "$solar" translate "$root/examples/train/mlp_block.py" --train --optimizer adamw \
    --no-validate -o "$t/m.air"; expect 0 translate
  run "$solar" shard "$t/m.air" --mesh dp=4 -o "$t/dp.air"; expect 0 shard
  grep -q "^in x\[(TOKENS // 4), DIM\]: f32 split(dp, 0);" "$t/dp.air" || say "x is not split by dp"
  for g in norm_weight norm_bias up_weight up_bias down_weight down_bias; do
    collectives "$t/dp.air" | grep -qx "all_reduce(dp, sum) ${g}_grad" || say "no all-reduce of ${g}_grad"
  done
  wrapper "$root/examples/train/mlp_block.py" sum "$t/step.py" TOKENS=16 DIM=8 HIDDEN=12
  run "$solar" validate "$t/dp.air" --ref "$t/step.py" -D TOKENS=16 -D DIM=8 -D HIDDEN=12
  expect 0 "validate dp=4 training step"
  tail -n 1 "$t/out" | grep -qx PASS || say "validate dp=4: not PASS"
  run "$solar" analyze "$t/dp.air" --device hgx-h200-8; expect 0 analyze
  grep -q "^up_weight_grad_all_reduce_dp  *all_reduce  *dp  *4  *one node  *67.1 MB" "$t/out" ||
    say "analyze: no line for the up_weight_grad all-reduce (67.1 MB of f32)"
  ;;
hand)
  # examples/many-gpus/mlp_tp.air, written by hand, against the whole MLP
  run "$solar" validate "$root/examples/many-gpus/mlp_tp.air" --ref "$root/examples/mlp_block.py" \
    -D B=2 -D S=4 -D D=16; expect 0 "validate mlp_tp.air"
  sed 's/all_reduce(tp, sum) part;/all_reduce(tp, max) part;/' \
    "$root/examples/many-gpus/mlp_tp.air" >"$t/max.air"
  run "$solar" validate "$t/max.air" --ref "$root/examples/mlp_block.py" -D B=2 -D S=4 -D D=16
  expect 1 "validate with max for sum"
  run "$solar" validate "$root/examples/many-gpus/mlp_tp.air" --ref "$root/examples/mlp_block.py" \
    -D B=2 -D S=4 -D D=16 --device h200-sxm; expect 2 "validate --device of a mesh program"
  grep -q "error: validate of a program with a mesh takes no --device" "$t/err" || say "no --device message"
  ;;
errors)
  run "$solar" translate --hf "$tiny" --batch 1 --seq 5 --no-validate -o "$t/l.air"; expect 0 translate
  run "$solar" shard "$t/l.air" --mesh tp=3; expect 1 "tp=3"
  grep -q "l.air:8:.*error: 'HEADS' is 16, which tp = 3 does not divide" "$t/err" ||
    { say "tp=3: no located error"; cat "$t/err"; }
  run "$solar" shard "$t/l.air" --mesh tp=8 --split tp=NOPE; expect 2 "--split NOPE"
  grep -q "has no param or const 'NOPE'" "$t/err" || say "--split NOPE: $(cat "$t/err")"
  run "$solar" shard "$t/l.air" --mesh tp=8 --split pp=INTER; expect 2 "--split pp"
  run "$solar" shard "$t/l.air" --mesh tp; expect 2 "--mesh tp"
  grep -q "expects AXIS=N" "$t/err" || say "--mesh tp: $(cat "$t/err")"
  run "$solar" shard "$t/l.air" --mesh pp=2; expect 2 "pp without --split"
  grep -q "pp splits nothing" "$t/err" || say "pp: $(cat "$t/err")"
  run "$solar" shard "$root/examples/many-gpus/mlp_tp.air" --mesh tp=2; expect 1 "a mesh already"
  # forward only, dp: no reduction over the batch, no collective
  run "$solar" shard "$root/examples/mlp_block.air" --mesh dp=4 --split dp=B -o "$t/b.air"
  expect 0 "mlp_block.air, dp=4"
  [ -z "$(collectives "$t/b.air")" ] || say "mlp_block.air dp=4: collectives: $(collectives "$t/b.air")"
  printf 'air 1;\nparam B = 8, D = 4;\nin x[B, D]: f32;\nout s[D]: f32;\ntmp acc[D]: f32;\nkernel k {\n  for d in 0..D {\n    acc[d] = 0;\n    for b in 0..B { acc[d] += x[b, d]; }\n    s[d] = acc[d] * acc[d];\n  }\n}\n' >"$t/own.air"
  run "$solar" shard "$t/own.air" --mesh dp=4 --split dp=B; expect 1 "a kernel reading its own partial sum"
  grep -q "own.air:10:5: error: this statement reads 'acc', a partial sum of the kernel's own" "$t/err" ||
    say "own partial sum: $(head -3 "$t/err")"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
