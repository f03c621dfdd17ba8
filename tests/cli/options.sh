#!/bin/sh
# Each command takes only its own options (cli/commands.c, one parser: cli/args.c): any other is a
# usage error (exit 2) with this exact message, before anything runs or is written, and the
# message points at the command's own help.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$root" || exit 2
fail=0
D=devices/h100-sxm.json A=examples/mlp_block.air
while IFS='|' read -r args msg; do
  [ -z "$args" ] && continue
  eval "set -- $args"
  "$solar" "$@" -o "$t/out" >"$t/stdout" 2>"$t/err"; rc=$?
  printf 'solar: %s\nTry '"'"'solar %s --help'"'"'.\n' "$msg" "$1" >"$t/want"
  if [ "$rc" != 2 ]; then echo "solar $args: exit $rc, expected 2"; fail=1; fi
  diff -u "$t/want" "$t/err" || { echo "  (solar $args)"; fail=1; }
  [ -e "$t/out" ] && { echo "solar $args: wrote $t/out"; fail=1; rm -f "$t/out"; }
  [ -s "$t/stdout" ] && { echo "solar $args: wrote to stdout"; fail=1; }
done <<EOF
analyze --device=$D --l2=hot $A|--l2 expects warm or cold, not 'hot'
analyze --device $D --json=yes $A|option '--json' takes no value
count --device=$D $A|count does not take --device (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
count --bogus=1 $A|unknown option '--bogus'
analyze $A --device $D --svg --dot|analyze does not take --svg (it takes -D, --no-assume, --json, --format, --device, --math, --measured, -o, --set, --l2, --ceilings)
fmt $A -o --verify|option '-o' needs a value, not the option '--verify' (a file of that name: ./--verify)
analyze $A --device --l2|option '--device' needs a value, not the option '--l2' (a file of that name: ./--l2)
analyze --devcie $D $A|unknown option '--devcie' (did you mean '--device'?)
triage tests --device $D --histroy x|unknown option '--histroy' (did you mean '--history'?)
advise $A --device $D --measured 1ms --after soon|--after expects a time such as 1.2ms, not 'soon'
advise $A --device $D --measured 1ms --format csv|advise --format expects table, md or json, not 'csv'
advise $A --device $D --measured 1ms --stop-factor 0.5|--stop-factor expects a factor >= 1, not '0.5'
advise $A --device $D --measured 1ms --vary x|advise does not take --vary (it takes --measured, --device, --set, -D, --math, --l2, --tol, --stop-factor, --memory, --previous, --emit, --format, --json, -o, --record, --direction, --strategy, --after, --wrong, --problem)
triage tests --device $D --coverage 2|--coverage expects a number from 0.5 to 0.99, not '2'
triage tests --device $D --budget 150%|--budget expects a count N or a share P%, not '150%'
triage tests --device $D --ms 0|--ms expects a positive number of milliseconds, not '0'
translate examples/softmax.py --attempts 0|--attempts expects a count from 1 to 999, not '0'
translate examples/softmax.py --timeout=-1|--timeout expects a positive number of seconds, not '-1'
translate examples/softmax.py --device $D|translate does not take --device (it takes -o, --no-validate, -D, --keep, --timeout, --max-work, --jax, --llm, --attempts, --log, --hf, --batch, --seq, --decode, --context, --layers, --train, --loss, --optimizer, --backend)
help --completion fish|--completion expects bash or zsh, not 'fish'
check $A|check does not take -o (it takes -D)
fmt --json $A|fmt does not take --json (it takes -D, --verify, -o)
count --device $D $A|count does not take --device (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
count --set memory.dram.bandwidth_bytes_per_s=1TB/s $A|count does not take --set (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
count --target-time 1ms $A|count does not take --target-time (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
count --dot $A|count does not take --dot (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
count --format csv $A|count --format expects table or json, not 'csv'
count --format md $A|count --format expects table or json, not 'md'
graph --json $A|graph does not take --json (it takes -D, --dot, -o)
graph --math tf32 $A|graph does not take --math (it takes -D, --dot, -o)
analyze --device $D --vary dram_bw=1x..2x $A|analyze does not take --vary (it takes -D, --no-assume, --json, --format, --device, --math, --measured, -o, --set, --l2, --ceilings)
analyze --device $D --format xml $A|analyze --format expects table, md, json or csv, not 'xml'
device show $D --set clock_hz=1e9|device does not take --set (it takes --json, --format, -o, --ceilings)
provision --device $D --target-time 1ms --format csv $A|provision --format expects table or json, not 'csv'
provision --device $D --target-time 1ms --measured 1ms $A|provision does not take --measured (it takes -D, --no-assume, --json, --format, --device, --math, -o, --set, --target-time, --bound, --l2)
sweep --device $D --vary dram_bw=1x..2x --format table $A|sweep --format expects json or csv, not 'table'
sweep --device $D --vary dram_bw=1x..2x --bound fused $A|sweep does not take --bound (it takes -D, --json, --format, --device, --math, -o, --set, --vary, --target-time, --steps, --svg, --l2)
report tests/report/manifest.json -D B=2|report does not take -D (it takes --json, --bound, --svg, --md, --baseline, --max-headroom, --max-regression)
analyze --device $D --l2 hot $A|--l2 expects warm or cold, not 'hot'
analyze --device $D --ceilings best $A|--ceilings expects bound, measured or both, not 'best'
sweep --device $D --vary dram_bw=1x..2x --ceilings measured $A|sweep does not take --ceilings (it takes -D, --json, --format, --device, --math, -o, --set, --vary, --target-time, --steps, --svg, --l2)
count --l2 cold $A|count does not take --l2 (it takes -D, --no-assume, --json, --format, --symbolic, --math, -o)
validate $A --ref examples/mlp_block.py --measured 1ms|validate does not take --measured (it takes -D, --json, --format, --device, --math, -o, --set, --ref, --backend, --tol, --keep, --timeout, --l2)
EOF
exit $fail
