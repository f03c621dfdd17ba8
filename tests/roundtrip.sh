#!/bin/sh
# fmt round trip: `solar fmt` output must parse, print identically again (a fixed point), and
# `solar fmt --verify` checks that the reparsed IR equals the original IR structurally.
solar=$1 air=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
"$solar" fmt "$air" >"$t/a.air" || exit 1
"$solar" fmt "$t/a.air" >"$t/b.air" || exit 1
diff -u "$t/a.air" "$t/b.air" || exit 1
"$solar" fmt --verify "$air" >/dev/null
