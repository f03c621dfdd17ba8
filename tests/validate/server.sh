#!/bin/sh
# The harness server of the validate tests (validate/harness.py serve; docs/validate.md,
# "Server"): PyTorch is imported once for the whole run, not once per case.  A ctest fixture:
#   server.sh setup SOCKET     starts it with $SOLAR_PYTHON (default python3, the harness's
#                              own default), waits for its socket; without torch there it
#                              starts nothing (each case then runs its harness itself)
#   server.sh cleanup SOCKET   stops it
# A case that cannot reach the server runs the request itself, so a server that is not there
# costs time, not results.
action=$1 sock=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
py=${SOLAR_PYTHON:-python3}
case $action in
setup)
  [ -f "$sock.pid" ] && kill "$(cat "$sock.pid")" 2>/dev/null
  rm -f "$sock" "$sock.pid"
  # the Python the harness runs its requests in: SOLAR_PYTHON, else python3 or, as the
  # harness re-executes itself (validate/harness.py ensure_interpreter), /usr/bin/python3
  if ! "$py" -c 'import torch, numpy' 2>/dev/null; then
    [ -z "$SOLAR_PYTHON" ] && [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import torch, numpy' 2>/dev/null &&
      py=/usr/bin/python3 || { echo "no torch at $py: no server"; exit 0; }
  fi
  # ends by itself after 15 idle minutes, should cleanup never run
  nohup "$py" "$root/validate/harness.py" serve "$sock" 900 >"$sock.log" 2>&1 &
  echo $! >"$sock.pid"
  i=0
  while [ ! -S "$sock" ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
  [ -S "$sock" ] || { echo "the harness server did not start:"; cat "$sock.log"; exit 1; }
  echo "harness server at $sock ($py)" ;;
cleanup)
  [ -f "$sock.pid" ] && kill "$(cat "$sock.pid")" 2>/dev/null
  rm -f "$sock.pid"
  exit 0 ;;
*) echo "usage: server.sh setup|cleanup SOCKET"; exit 2 ;;
esac
