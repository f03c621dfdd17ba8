#!/bin/sh
# docs/examples/embed.c, the C API's example (docs/api.md), against the CLI: the cache-aware
# bound it prints for each program must be the one `solar analyze --format json` prints, to
# the last digit; a bad device gives its exit status 2.
#   embed.sh EMBED SOLAR ROOT
embed=$1 solar=$2 root=$3
cd "$root" || exit 1
fail=0
for case in "examples/softmax.air devices/h100-sxm.json" \
            "examples/mlp_block.air devices/h100-sxm.json" \
            "examples/matmul_bf16.air devices/h200-sxm.json M=4096"; do
  set -- $case
  air=$1 dev=$2; shift 2
  d=""; for x in "$@"; do d="$d -D $x"; done
  got=$("$embed" "$air" "$dev" "$@" | sed -n 's/^cache_aware_s //p')
  want=$("$solar" analyze "$air" --device "$dev" $d --format json |
    python3 -c 'import json, sys; print(repr(json.load(sys.stdin)["cache_aware"]["time_s"]))')
  if [ -z "$got" ] || ! python3 -c "import sys; sys.exit(float('$got') != float('$want'))"; then
    echo "$air on $dev $*: embed printed '$got', solar analyze '$want'"; fail=1
  else
    echo "$air on $dev $*: $got s"
  fi
done
"$embed" examples/softmax.air devices/no-such.json >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || { echo "a missing device: exit status $rc, expected 2"; fail=1; }
exit $fail
