#!/bin/sh
# Installs the Debian packages solar needs to build and test, and nothing when all are present.
# Non-interactive; runs `apt-get update` at most once. Needs root (or sudo) only when something
# is missing.
set -eu
pkgs="flex bison libisl-dev libcjson-dev libgmp-dev cmake gcc make pkg-config librsvg2-bin libxml2-utils"
# The reference harness of `solar validate` (validate/harness.py) runs the PyTorch originals
# with Debian's PyTorch (1.13, CPU) under /usr/bin/python3, unless SOLAR_PYTHON names a Python
# that already has torch and numpy.
if [ -z "${SOLAR_PYTHON:-}" ] || ! "$SOLAR_PYTHON" -c "import numpy, torch" >/dev/null 2>&1; then
  pkgs="$pkgs python3-numpy python3-torch"
fi
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
