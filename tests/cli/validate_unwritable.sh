#!/bin/sh
# solar validate stops with exit 2 when it cannot write a working file the comparison reads
# (DIR/air_run.json), instead of comparing against a missing or stale one.
#   validate_unwritable.sh SOLAR ROOT
solar=$1 root=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/solar-unwritable-XXXXXX")
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/air_run.json" # a folder where the file must go: fopen fails
cd "$root" || exit 1
"$solar" validate examples/rowsum.air --ref examples/rowsum.py -D M=16 -D N=32 --keep "$dir" \
  >"$dir/out" 2>&1
rc=$?
if [ "$rc" != 2 ]; then echo "exit status $rc, expected 2"; cat "$dir/out"; exit 1; fi
grep -q "cannot write .*air_run.json" "$dir/out" || { echo "no message naming air_run.json"; cat "$dir/out"; exit 1; }
