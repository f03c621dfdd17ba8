#!/bin/sh
# A run of solar validate ended by a signal leaves nothing behind: its working folder under
# $TMPDIR is removed and the child it was waiting for (here the harness, inside the reference's
# forward) is killed, not orphaned.  It used to leave the folder, hundreds of MB of arrays at
# real sizes, and the child running.
#   validate_interrupt.sh SOLAR ROOT
solar=$1 root=$2
t=$(mktemp -d "${TMPDIR:-/tmp}/solar-interrupt-XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir "$t/tmp"
cat >"$t/sleepy.py" <<PY
import os, time
import torch
import torch.nn as nn

M, N = 4, 8


class Model(nn.Module):
    def forward(self, x):
        with open("$t/started.tmp", "w") as f:
            f.write(str(os.getpid()))
        os.rename("$t/started.tmp", "$t/started")
        time.sleep(120)
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
PY
fail=0
for sig in TERM HUP; do
  rm -f "$t/started"
  (cd "$root" && TMPDIR="$t/tmp" exec "$solar" validate examples/rowsum.air --ref "$t/sleepy.py" \
    -D M=4 -D N=8 >"$t/out" 2>&1) &
  pid=$!
  waited=0
  while [ ! -f "$t/started" ] && [ $waited -lt 600 ]; do sleep 0.1; waited=$((waited + 1)); done
  if [ ! -f "$t/started" ]; then
    echo "SIG$sig: the reference never started:"; cat "$t/out"; kill -KILL $pid; exit 1
  fi
  child=$(cat "$t/started")
  kill -"$sig" $pid
  wait $pid
  rc=$?
  [ "$rc" -gt 128 ] || { echo "SIG$sig: exit status $rc, expected death by the signal"; fail=1; }
  left=$(ls -A "$t/tmp")
  [ -z "$left" ] || { echo "SIG$sig: left behind in TMPDIR: $left"; fail=1; }
  if kill -0 "$child" 2>/dev/null; then
    echo "SIG$sig: the harness (pid $child) still runs"; kill -KILL "$child"; fail=1
  fi
done
exit $fail
