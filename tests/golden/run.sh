#!/bin/sh
# Runs one golden test: tests/golden/<subcommand>/<name>.air.
#   - the subcommand is the folder name (check, fmt, count, analyze, graph, ...);
#   - a line `# args: ...` in the file, or the file <name>.args, adds arguments ($ROOT is the
#     source tree; a .air may be a symbolic link to an example, with its arguments beside it);
#   - a line `# exit: N` (or the file <name>.exit) gives the expected exit status (default: 1
#     when <name>.err exists, else 0);
#   - stdout is compared with <name>.out or <name>.json, stderr with <name>.err (else it must be empty).
# The solar process runs in the file's folder with the bare file name, so diagnostics carry no
# paths.  UPDATE=1 rewrites the expected files instead of comparing.
solar=$1 air=$2 ROOT=$3
dir=$(dirname "$air") base=$(basename "$air" .air) cmd=$(basename "$dir")
if [ -f "$dir/$base.args" ]; then
  args=$(head -n 1 "$dir/$base.args" | sed "s#\$ROOT#$ROOT#g")
else
  args=$(sed -n 's/^# args: //p' "$air" | head -n 1 | sed "s#\$ROOT#$ROOT#g")
fi
want_rc=$(sed -n 's/^# exit: //p' "$air" | head -n 1)
[ -f "$dir/$base.exit" ] && want_rc=$(cat "$dir/$base.exit") # for a .air linked to an example
if [ -z "$want_rc" ]; then
  if [ -f "$dir/$base.err" ]; then want_rc=1; else want_rc=0; fi
fi
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
(cd "$dir" && eval "\"$solar\" $cmd $args \"$base.air\"") >"$out" 2>"$err"
rc=$?
# Absolute paths of the source tree become $ROOT, so expectations hold in any clone.
for f in "$out" "$err"; do sed "s#$ROOT#\$ROOT#g" "$f" >"$f.r" && mv "$f.r" "$f"; done
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
