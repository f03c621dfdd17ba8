#!/bin/sh
# Runs one golden test: tests/golden/<subcommand>/<name>.air.
#   - the subcommand is the folder name (check, fmt, count, analyze, graph, ...);
#   - a line `# args: ...` in the file adds arguments ($ROOT is the source tree);
#   - a line `# exit: N` gives the expected exit status (default: 1 when <name>.err exists, else 0);
#   - stdout is compared with <name>.out or <name>.json, stderr with <name>.err (else it must be empty).
# The solar process runs in the file's folder with the bare file name, so diagnostics carry no
# paths.  UPDATE=1 rewrites the expected files instead of comparing.
solar=$1 air=$2 ROOT=$3
dir=$(dirname "$air") base=$(basename "$air" .air) cmd=$(basename "$dir")
args=$(sed -n 's/^# args: //p' "$air" | head -n 1 | sed "s#\$ROOT#$ROOT#g")
want_rc=$(sed -n 's/^# exit: //p' "$air" | head -n 1)
if [ -z "$want_rc" ]; then
  if [ -f "$dir/$base.err" ]; then want_rc=1; else want_rc=0; fi
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
(cd "$dir" && eval "\"$solar\" $cmd $args \"$base.air\"") >"$out" 2>"$err"
rc=$?
expect_out="$dir/$base.out"
[ -f "$dir/$base.json" ] && expect_out="$dir/$base.json"
if [ "${UPDATE:-0}" = 1 ]; then
  if [ -s "$out" ] || [ -f "$expect_out" ]; then cp "$out" "$expect_out"; fi
  if [ -s "$err" ]; then cp "$err" "$dir/$base.err"; else rm -f "$dir/$base.err"; fi
  exit 0
fi
fail=0
if [ "$rc" != "$want_rc" ]; then echo "exit status $rc, expected $want_rc"; fail=1; fi
if [ -f "$expect_out" ]; then
  diff -u "$expect_out" "$out" || fail=1
elif [ -s "$out" ]; then echo "unexpected stdout:"; cat "$out"; fail=1; fi
if [ -f "$dir/$base.err" ]; then
  diff -u "$dir/$base.err" "$err" || fail=1
elif [ -s "$err" ]; then echo "unexpected stderr:"; cat "$err"; fail=1; fi
exit $fail
