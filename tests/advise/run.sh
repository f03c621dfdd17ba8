#!/bin/sh
# solar advise (docs/advise.md): one case per ctest.
#   sums       the parts are non-negative and add up to measured - SOL exactly; levels fall
#   rewrites   every emitted rewrite analyses (solar analyze) to the what-if bounds advise printed
#   memory     --record builds the store and its statistics; --memory re-ranks as the formula says
#   malformed  a malformed memory file: FILE: JSON.PATH: message (one spelling, solar_diag_path_error), exit 1, the file untouched
#   below      a measured time below the bound is an error (exit 1) that says what it means
#   record     concurrent records keep every step; a full disk says no 'recorded'; --after below
#              the speed of light is refused; --emit never writes over the program
#   stop       the stop verdict at the stated factor
#   usage      bad flags exit 2; a failed translation exits 1 with a message
#   once       the program as written is analysed once: a check or a bound that fails says so once
solar=$1 case=$2 root=$3
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
E=$root/examples D=$root/devices/h200-sxm.json A=$root/tests/advise
no() { echo "FAIL: $*"; fail=1; }
py() { python3 -c "$@"; }
# expect RC MESSAGE-PATTERN COMMAND...: exit status and stderr
expect() {
  want=$1 pat=$2; shift 2
  "$@" >"$t/out" 2>"$t/err"; rc=$?
  [ "$rc" = "$want" ] || no "$*: exit $rc, expected $want; stderr: $(cat "$t/err")"
  grep -q -- "$pat" "$t/err" || no "$*: stderr lacks '$pat': $(cat "$t/err")"
}

case $case in
sums)
  printf 'air 1;\n' >"$t/empty.air"   # no kernels, no tables: every bound is 0
  for args in "$E/attention_causal.air --measured 1.2ms" "$E/linear_bias_gelu.air --measured 1.9ms" \
              "$E/matmul_f32.air --measured 20ms --tol 1e-2" "$E/layernorm.air --measured 45us" \
              "$A/masked.air --measured 3us" "$E/mlp_block.air --measured 5ms --l2 cold" \
              "$E/conv2d_3x3.air --measured 400us --tol 1e-3" "$root/tests/report/zero.air --measured 1ms" \
              "$t/empty.air --measured 2us" "$A/copy.air --measured 300us"; do
    # shellcheck disable=SC2086
    "$solar" advise $args --device "$D" --json >"$t/a.json" || { no "advise $args failed"; continue; }
    py "
import json, sys
j = json.load(open('$t/a.json'))
m, sol, L = j['measured_s'], j['sol_s'], j['levels_s']
parts = [d['part_s'] for d in j['directions']]
assert j['schema'] == 'solar.advise/1', j['schema']
assert all(p >= 0 for p in parts), parts
assert abs(sum(parts) - (m - sol)) <= 1e-12 * m, (sum(parts), m - sol)
assert abs(sum(d['share'] for d in j['directions']) - (m - sol) / m) <= 1e-12, 'shares'
assert len(L) == 7 and all(a >= b for a, b in zip(L, L[1:])) and L[0] == m and L[-1] == sol, L
assert sorted(d['name'] for d in j['directions']) == sorted(['implementation', 'fusion', 'data reuse', 'datapath', 'redundant work'])
scores = [d['score'] for d in j['directions']]
assert scores == sorted(scores, reverse=True), scores
" || no "advise $args: the parts do not add up"
  done
  # per-kernel times: the total is their sum, and a kernel far above its bound is named
  printf '{"kernels": {"scores": 0.0004, "softmax": 0.0006, "pv": 0.0002}}\n' >"$t/k.json"
  "$solar" advise "$E/attention_causal.air" --measured "$t/k.json" --device "$D" --json >"$t/a.json" ||
    no "advise with kernel times failed"
  py "
import json
j = json.load(open('$t/a.json'))
assert abs(j['measured_s'] - 0.0012) < 1e-15, j['measured_s']
impl = [d for d in j['directions'] if d['name'] == 'implementation'][0]
names = [s['name'] for s in impl['strategies']]
assert any('tune kernel softmax' in n for n in names), names
" || no "per-kernel times not used"
  ;;
rewrites)
  for args in "$E/attention_causal.air --measured 1.2ms" "$E/matmul_f32.air --measured 20ms --tol 1e-2" \
              "$A/masked.air --measured 3us" "$E/mlp_block.air --measured 5ms --l2 cold" \
              "$E/linear_bias_gelu.air --measured 2ms -D S=1024" "$A/f32_chain.air --measured 3ms --math tf32" \
              "$A/f32_elementwise.air --measured 400us" "$A/f64_chain.air --measured 200us" \
              "$A/diag_matmul.air --measured 6ms --l2 cold"; do
    rm -rf "$t/emit"
    # shellcheck disable=SC2086
    "$solar" advise $args --device "$D" --emit "$t/emit" --json >"$t/a.json" || { no "advise $args failed"; continue; }
    l2=warm; case $args in *cold*) l2=cold;; esac
    n=0
    for f in "$t"/emit/*.air; do
      [ -e "$f" ] || continue
      n=$((n + 1))
      "$solar" analyze "$f" --device "$D" --l2 $l2 --json >"$t/b.json" || { no "analyze $(basename "$f") failed"; continue; }
      py "
import json
a = json.load(open('$t/a.json')); b = json.load(open('$t/b.json'))
s = [s for d in a['directions'] for s in d['strategies'] if s.get('emit') == '$(basename "$f")']
assert len(s) == 1, s
s = s[0]
assert s['what_if_bound_s'] == b['unfused']['time_s'], (s['what_if_bound_s'], b['unfused']['time_s'])
assert s['what_if_sol_s'] == b['fused']['time_s'], (s['what_if_sol_s'], b['fused']['time_s'])
assert s['what_if_cache_aware_s'] == b['cache_aware']['time_s']
" || no "$args: $(basename "$f"): the what-if bounds differ from solar analyze's"
    done
    [ $n -gt 0 ] || no "$args: no rewrite emitted"
  done
  # each kind of rewrite is there: fusion, datapath (TF32 and bf16), redundant work
  for f in fuse_scores_pv.air fuse_scores_softmax.air; do
    "$solar" advise "$E/attention_causal.air" --measured 1.2ms --device "$D" --emit "$t/e1" >/dev/null
    [ -f "$t/e1/$f" ] || no "attention: $f not emitted"
  done
  "$solar" advise "$E/matmul_f32.air" --measured 20ms --tol 1e-2 --device "$D" --emit "$t/e2" >/dev/null
  for f in tf32.air bf16.air; do [ -f "$t/e2/$f" ] || no "matmul_f32: $f not emitted"; done
  "$solar" advise "$E/matmul_f32.air" --measured 20ms --device "$D" --emit "$t/e3" >/dev/null
  [ -e "$t/e3/tf32.air" ] && no "matmul_f32 at the default tol 1e-4: TF32 must not be allowed"
  "$solar" advise "$A/f32_elementwise.air" --measured 400us --device "$D" --emit "$t/e6" >/dev/null
  grep -q '^tmp a\[N\]: bf16;' "$t/e6/bf16.air" || no "f32_elementwise: the intermediates are not stored in bf16"
  "$solar" advise "$A/f64_chain.air" --measured 200us --device "$D" --emit "$t/e7" >/dev/null
  grep -q '^tmp s\[R\]: f32;' "$t/e7/f32.air" || no "f64_chain: the f64 intermediates are not narrowed to f32"
  "$solar" advise "$A/masked.air" --measured 3us --device "$D" --emit "$t/e4" >/dev/null
  grep -q 'if j <= i' "$t/e4/skip_masked.air" || no "masked: the select was not split"
  # a copy kernel is redundant work, and its merge is not offered again under fusion
  "$solar" advise "$A/copy.air" --measured 300us --device "$D" --emit "$t/e5" --json >"$t/c.json"
  [ -f "$t/e5/nocopy_transpose_b.air" ] || no "copy: nocopy_transpose_b.air not emitted"
  py "
import json
j = json.load(open('$t/c.json'))
d = {x['name']: x for x in j['directions']}
assert [s['name'][:13] for s in d['redundant work']['strategies']] == ['drop the copy'], d['redundant work']
assert d['fusion']['strategies'] == [], d['fusion']['strategies']
" || no "copy: the copy kernel is not (only) redundant work"
  # rule "zero operand": the GEMM over torch.diag's matrix reads a[r] under `if i == r`, the
  # diag kernel goes; the sum over select(.., 1.0) (not a zero pattern) is left as written
  rm -rf "$t/emit"
  "$solar" advise "$A/diag_matmul.air" --measured 6ms --l2 cold --device "$D" --emit "$t/emit" \
    --json >"$t/a.json" || no "advise diag_matmul failed"
  py "
import json, sys
j = json.load(open('$t/a.json'))
d = [d for d in j['directions'] if d['name'] == 'redundant work'][0]
z = [s for s in d['strategies'] if s['name'].startswith('skip structural zeros')]
if len(z) != 1 or 'drop kernel diag' not in z[0]['name']:
    sys.exit('zero operand: %s' % [s['name'] for s in d['strategies']])
if not z[0]['what_if_bound_s'] < 0.55 * j['bounds']['unfused_s']:  # the neg GEMM stays: half
    sys.exit('zero operand: what-if %g vs as written %g' % (z[0]['what_if_bound_s'], j['bounds']['unfused_s']))
" || no "zero operand rewrite"
  grep -q 'if i0 == r2' "$t/emit/skip_zeros.air" && grep -q 'a\[r2\] \* b\[r2, i1\]' "$t/emit/skip_zeros.air" &&
    grep -q 'b\[r2, i1\] \* ones\[i0, r2\]' "$t/emit/skip_zeros.air" && ! grep -q '^kernel diag' "$t/emit/skip_zeros.air" ||
    no "zero operand: $(cat "$t/emit/skip_zeros.air")"
  rm -rf "$t/emit"
  "$solar" advise "$A/diag_squared.air" --measured 1ms --device "$D" --emit "$t/emit" >/dev/null ||
    no "advise diag_squared failed"
  grep -q '^kernel diag' "$t/emit/skip_zeros.air" && grep -q 'a\[r2\] \* diag\[r2, i1\]' "$t/emit/skip_zeros.air" ||
    no "zero operand, X * X: the kernel of the X still read went: $(cat "$t/emit/skip_zeros.air")"
  ;;
memory)
  M=$t/m.json
  rec() { "$solar" advise "$@" --device "$D" --record "$M" >"$t/out" 2>"$t/err" || no "record $*: $(cat "$t/err")"; }
  rec "$E/attention_causal.air" --measured 1.2ms --direction fusion --strategy "flash" --after 0.3ms --problem att
  rec "$E/attention_causal.air" --measured 0.3ms --direction implementation --strategy "tile" \
      --after 0.5ms --previous fusion --problem att
  rec "$E/attention_causal.air" --measured 1.2ms --direction fusion --strategy "fuse softmax" \
      --after 1.3ms --wrong "max err 0.3" --problem att
  ls "$t" | grep -q 'tmp' && no "a temporary file was left beside the memory"
  py "
import json
m = json.load(open('$M'))
assert m['schema'] == 'solar.advise-memory/1'
assert len(m['steps']) == 3
f = m['directions']['fusion']
assert f['tried'] == 2 and f['paid'] == 1 and abs(f['mean_gain'] - 0.375) < 1e-12, f
i = m['directions']['implementation']
assert i['tried'] == 1 and i['paid'] == 0 and i['mean_gain'] == 0, i
assert m['transitions']['start -> fusion']['tried'] == 2
assert m['transitions']['fusion -> implementation']['paid'] == 0
s = m['steps'][2]
assert s['correct'] is False and s['why'] == 'wrong output: max err 0.3', s
assert s['signature']['limiter'] == 'tensor.bf16' and 'contraction' in s['signature']['op_classes']
assert s['signature']['sizes'] == {'B': 8, 'H': 16, 'S': 2048, 'D': 64}
" || no "the store's steps or statistics are wrong"
  # ranking: a memory where the analysis's first direction never paid and its second always
  # did, in this very state, puts the second first and the first lower
  M=$t/m2.json
  "$solar" advise "$E/attention_causal.air" --measured 1.2ms --device "$D" --json >"$t/a.json"
  first=$(py "import json; print(json.load(open('$t/a.json'))['directions'][0]['name'])")
  second=$(py "import json; print(json.load(open('$t/a.json'))['directions'][1]['name'])")
  for k in 1 2 3; do
    rec "$E/attention_causal.air" --measured 1.2ms --direction "$first" --strategy f$k --after 1.25ms
    rec "$E/attention_causal.air" --measured 1.2ms --direction "$second" --strategy i$k --after 0.6ms
  done
  "$solar" advise "$E/attention_causal.air" --measured 1.2ms --device "$D" --memory "$M" --json >"$t/b.json"
  py "
import json, math
a = json.load(open('$t/a.json')); b = json.load(open('$t/b.json'))
first, second = '$first', '$second'
names = [d['name'] for d in b['directions']]
assert names[0] == second and names.index(first) > 0, names
f = [d for d in b['directions'] if d['name'] == first][0]
i = [d for d in b['directions'] if d['name'] == second][0]
# three identical states: similarity 1, so n = 3; fusion paid 0 of 3, implementation 3 of 3
assert abs(f['p_paid'] - 1 / 5) < 1e-12 and abs(i['p_paid'] - 4 / 5) < 1e-12, (f['p_paid'], i['p_paid'])
assert abs(f['mean_realised'] - 0.5 / 4) < 1e-12, f['mean_realised']
T = 1.2e-3
assert abs(f['score'] - (f['max_gain_s'] + 0.01 * T) * f['p_paid'] * f['mean_realised'] / 0.25) < 1e-15
assert b['memory']['steps'] == 6
" || no "the memory does not re-rank as the formula says"
  ;;
malformed)
  printf '{"schema": "solar.advise-memory/1", "steps": [\n  {"direction": 3}\n' >"$t/bad.json"
  cp "$t/bad.json" "$t/bad.orig"
  expect 1 "bad.json:3:1: error: invalid JSON" "$solar" advise "$E/softmax.air" --measured 1ms \
    --device "$D" --memory "$t/bad.json"
  expect 1 "bad.json:3:1: error: invalid JSON" "$solar" advise "$E/softmax.air" --measured 1ms \
    --device "$D" --record "$t/bad.json" --direction fusion --strategy x --after 1ms
  cmp -s "$t/bad.json" "$t/bad.orig" || no "a failed --record changed the memory file"
  printf '{"schema": "solar.advise-memory/1", "steps": [{"direction": "speed", "strategy": 1,
   "signature": {"op_classes": ["gemm"], "limiter": "dram", "shares": {"fusion": 2}},
   "before": {"measured_s": -1}, "after": {}, "correct": "yes"}]}\n' >"$t/bad2.json"
  expect 1 "bad2.json: steps\[0\].direction: expected one of" "$solar" advise "$E/softmax.air" \
    --measured 1ms --device "$D" --memory "$t/bad2.json"
  for p in 'steps\[0\].signature.op_classes\[0\]' 'steps\[0\].signature.shares.fusion' \
           'steps\[0\].strategy: expected a string' 'steps\[0\].before.measured_s: expected a positive' \
           'steps\[0\].after.measured_s: missing' 'steps\[0\].correct: expected true or false'; do
    grep -q -- "$p" "$t/err" || no "malformed memory: no message for $p: $(cat "$t/err")"
  done
  printf '[1, 2]\n' >"$t/bad3.json"
  expect 1 "bad3.json: expected an object" "$solar" advise "$E/softmax.air" \
    --measured 1ms --device "$D" --memory "$t/bad3.json"
  # cJSON keeps both of a key given twice and reads 1e400 as infinity: both refused, named
  printf '{"schema": "solar.advise-memory/1", "steps": [], "steps": [{"before": {"measured_s": 1e400}}]}\n' >"$t/bad4.json"
  expect 1 "bad4.json: steps: duplicate key 'steps'" "$solar" advise "$E/softmax.air" \
    --measured 1ms --device "$D" --memory "$t/bad4.json"
  grep -q "bad4.json: steps\[0\].before.measured_s: number out of range" "$t/err" ||
    no "memory: 1e400 not refused: $(cat "$t/err")"
  printf '{"total": 1e400, "kernels": {"softmax": 1e-3, "softmax": 2e-3}}\n' >"$t/k.json"
  expect 1 "k.json: total: number out of range" "$solar" advise "$E/softmax.air" \
    --measured "$t/k.json" --device "$D"
  grep -q "k.json: kernels.softmax: duplicate key 'softmax'" "$t/err" ||
    no "--measured FILE: a duplicate kernel not refused: $(cat "$t/err")"
  ;;
below)
  expect 1 "below the speed of light, so either the benchmark is broken" "$solar" advise \
    "$E/attention_causal.air" --measured 10us --device "$D"
  [ -s "$t/out" ] && no "advise printed advice for an impossible time"
  printf '{"total": 0.002, "kernels": {"softmax": 1e-6}}\n' >"$t/k.json"
  expect 1 "kernel softmax: measured .* below the speed of light" "$solar" advise \
    "$E/attention_causal.air" --measured "$t/k.json" --device "$D"
  ;;
record)
  # twenty concurrent records: every step kept (the store is locked and read again under the lock)
  M=$t/c.json k=0
  while [ $k -lt 20 ]; do
    k=$((k + 1))
    "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --record "$M" --direction fusion \
      --strategy "s$k" --after 0.9ms >"$t/out$k" 2>"$t/err$k" &
  done
  wait
  n=$(py "import json; print(len(json.load(open('$M'))['steps']))")
  [ "$n" = 20 ] || no "20 concurrent records kept $n steps"
  [ "$(cat "$t"/out* | grep -c '^recorded step')" = 20 ] || no "not 20 'recorded': $(cat "$t"/err*)"
  # a full disk (here a file size limit, SIGXFSZ ignored so the write fails with EFBIG): an
  # error, exit 2, the store unchanged, and no 'recorded'
  cp "$M" "$t/c.orig"
  (trap '' XFSZ; ulimit -f 4; "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" \
    --record "$M" --direction fusion --strategy full --after 0.9ms >"$t/out" 2>"$t/err"); rc=$?
  [ "$rc" = 2 ] || no "record on a full disk: exit $rc, expected 2"
  grep -q "writing $M: File too large" "$t/err" || no "record on a full disk: $(cat "$t/err")"
  grep -q recorded "$t/out" && no "record on a full disk said: $(cat "$t/out")"
  cmp -s "$M" "$t/c.orig" || no "record on a full disk changed the store"
  ls -a "$t" | grep -q '^\.c\.json\.' && no "record on a full disk left its temporary file"
  # --after below the speed of light: refused as --measured is, the store unchanged
  expect 1 "softmax.air: --after: measured 1e-09 s is .*x the speed of light (.* s): below the speed of light, so either the benchmark is broken" \
    "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --record "$M" --direction fusion \
    --strategy x --after 1ns
  cmp -s "$M" "$t/c.orig" || no "a refused --after changed the store"
  # ... but recorded with --wrong (a wrong output may be that fast)
  "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --record "$M" --direction fusion \
    --strategy x --after 1ns --wrong "skipped the work" >/dev/null 2>"$t/err" || no "--wrong below SOL: $(cat "$t/err")"
  # --emit into the folder that holds the program, where a rewrite has the program's name
  mkdir "$t/em"
  cp "$E/matmul_f32.air" "$t/em/tf32.air"
  cp "$t/em/tf32.air" "$t/tf32.orig"
  expect 2 "refusing to write $t/em/tf32.air: it is an input of this run" "$solar" advise \
    "$t/em/tf32.air" --measured 20ms --tol 1e-2 --device "$D" --emit "$t/em"
  cmp -s "$t/em/tf32.air" "$t/tf32.orig" || no "--emit overwrote the program"
  ;;
stop)
  sol=$("$solar" advise "$E/layernorm.air" --measured 1ms --device "$D" --json | py "import json,sys; print(json.load(sys.stdin)['sol_s'])")
  for f in 1.2:stop 1.49:stop 1.6:continue 3:continue; do
    x=${f%%:*} want=${f#*:}
    m=$(py "print($sol * $x)")
    v=$("$solar" advise "$E/layernorm.air" --measured "$m" --device "$D" --json | py "import json,sys; print(json.load(sys.stdin)['verdict'])")
    [ "$v" = "$want" ] || no "measured $x x SOL: verdict $v, expected $want"
  done
  v=$("$solar" advise "$E/layernorm.air" --measured "$(py "print($sol * 1.8)")" --stop-factor 2 \
      --device "$D" --json | py "import json,sys; print(json.load(sys.stdin)['verdict'])")
  [ "$v" = stop ] || no "--stop-factor 2 at 1.8x: verdict $v"
  ;;
usage)
  expect 2 "needs --measured" "$solar" advise "$E/softmax.air" --device "$D"
  expect 2 "needs --device" "$solar" advise "$E/softmax.air" --measured 1ms
  expect 2 "expected a direction" "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" \
    --record "$t/m.json" --direction speed --strategy x --after 1ms
  expect 2 "--record needs" "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --record "$t/m.json"
  expect 2 "unknown option '--bogus'" "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --bogus
  expect 2 "--stop-factor expects a factor" "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" --stop-factor 0.5
  # -D as every other command reads it (cli/main.c solar_cli_parse_define): an integer that does
  # not fit in 64 bits or a name that is no identifier is a usage error (before: advise clamped
  # 99999999999999999999 to 2^63 - 1 and took '1N' as a name)
  for d in "B=99999999999999999999" "1B=4" "B=4x"; do
    expect 2 "-D expects NAME=INTEGER, not '$d'" "$solar" advise "$E/softmax.air" --measured 1ms --device "$D" -D "$d"
  done
  [ -e "$t/m.json" ] && no "a refused --record wrote the memory"
  printf 'import torch\nclass Model(torch.nn.Module:\n' >"$t/broken.py"
  expect 1 "the translation to AIR failed" "$solar" advise "$t/broken.py" --measured 1ms --device "$D"
  ;;
once)
  # before: a bound that overflows a double was printed twice (the program ran again to show
  # its messages)
  expect 1 "kernel 'deep': its bound overflows a double" "$solar" advise \
    "$root/tests/golden/analyze/overflow.air" --measured 1ms --device "$D"
  [ "$(grep -c . "$t/err")" = 1 ] || no "overflow: not one message: $(cat "$t/err")"
  expect 1 "index 'i\*j' is not affine" "$solar" advise \
    "$root/tests/golden/check/iter_times_iter.air" --measured 1ms --device "$D"
  [ "$(grep -c 'error:' "$t/err")" = 1 ] || no "a check error not said once: $(cat "$t/err")"
  [ -s "$t/out" ] && no "advise printed advice for a program that does not analyse"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
