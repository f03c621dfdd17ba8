#!/bin/sh
# Installs the Debian packages solar needs, and nothing when all are present.
#   sh scripts/deps.sh          what building solar needs (make demo)
#   sh scripts/deps.sh test     that, plus what the test suite needs (make test)
# Non-interactive; runs `apt-get update` at most once. Needs root (or sudo) only when something
# is missing.
set -eu
pkgs="flex bison libisl-dev libcjson-dev libgmp-dev cmake gcc make pkg-config"
if [ "${1:-}" = test ]; then
  # clang and its runtime for the ASan+UBSan+libFuzzer build; rsvg-convert and xmllint for the
  # SVG tests.
  pkgs="$pkgs clang libclang-rt-dev librsvg2-bin libxml2-utils"
  # `make venv` (solar translate's PyTorch, from PyPI) needs Python's venv module.
  pkgs="$pkgs python3-venv"
  # zsh, to run the zsh completion the build writes (tests/cli/completion.sh).
  pkgs="$pkgs zsh"
  # The reference harness of `solar validate` (validate/harness.py) runs the PyTorch originals
  # with Debian's PyTorch (1.13, CPU) under /usr/bin/python3, unless SOLAR_PYTHON names a
  # Python that already has torch and numpy.
  if [ -z "${SOLAR_PYTHON:-}" ] || ! "$SOLAR_PYTHON" -c "import numpy, torch" >/dev/null 2>&1; then
    pkgs="$pkgs python3-numpy python3-torch"
  fi
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
