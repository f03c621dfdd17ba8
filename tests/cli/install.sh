#!/bin/sh
# `make install` / `cmake --install` (CMakeLists.txt): installs into a temporary DESTDIR and
# runs the installed binary from elsewhere: --device by name finds the installed descriptors
# (not the source tree: the binary is outside the build tree), the man page renders, the
# completions are installed, and
# translate and validate find their installed Python files.
build=$1
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
say() { echo "$*"; fail=1; }
prefix=/opt/solar-test
DESTDIR="$t/stage" cmake --install "$build" --prefix "$prefix" >"$t/log" 2>&1 ||
  { cat "$t/log"; exit 1; }
root="$t/stage$prefix"
solar="$root/bin/solar"
for f in bin/solar share/solar/devices/h100-sxm.json share/solar/devices/h200-measured.json \
    share/solar/validate/harness.py share/solar/translate/run.py \
    share/solar/translate/solar_translate/cli.py share/solar/translate/air_digest.md \
    share/solar/examples/softmax.air share/man/man1/solar.1 \
    share/bash-completion/completions/solar share/zsh/site-functions/_solar; do
  [ -f "$root/$f" ] || say "not installed: $f"
done
[ -x "$solar" ] || { echo "no installed binary"; exit 1; }
mkdir "$t/elsewhere"
cd "$t/elsewhere" || exit 2
unset SOLAR_DEVICE_PATH
"$solar" analyze "$root/share/solar/examples/softmax.air" --device h100-sxm >"$t/out" 2>"$t/err" ||
  { say "installed solar analyze --device h100-sxm: exit $?"; cat "$t/err"; }
grep -q "on NVIDIA H100 SXM5" "$t/out" || say "installed analyze: no H100 in its output"
"$solar" device list >"$t/list" 2>&1 || say "installed device list: exit $?"
grep -q "^h100-sxm .* $root/share/solar/devices/h100-sxm.json\$" "$t/list" ||
  { say "installed device list does not use the installed folder:"; cat "$t/list"; }
# one row per descriptor under two headers (devices; then, after a blank line, systems)
n=$(($(wc -l <"$t/list") - 3)); want=$(ls "$root/share/solar/devices/"*.json | wc -l)
[ "$n" = "$want" ] || say "installed device list: $n devices, $want installed"
# the completions are the installed binary's own
"$solar" help --completion bash | cmp -s - "$root/share/bash-completion/completions/solar" ||
  say "installed bash completion differs from solar help --completion bash"
"$solar" help --completion zsh | cmp -s - "$root/share/zsh/site-functions/_solar" ||
  say "installed zsh completion differs from solar help --completion zsh"
# the man page is the help text, and renders without warnings
grep -q '^\.SS "solar analyze FILE' "$root/share/man/man1/solar.1" || say "solar.1 lacks analyze"
"$solar" help --man -o "$t/solar.1" && cmp -s "$t/solar.1" "$root/share/man/man1/solar.1" ||
  say "installed solar.1 differs from solar help --man"
if command -v groff >/dev/null; then
  w=$(groff -man -Tutf8 -ww -z "$root/share/man/man1/solar.1" 2>&1)
  [ -z "$w" ] || { say "groff warns on the installed solar.1:"; echo "$w"; }
fi
# translate runs the installed run.py (SOLAR_PYTHON=echo prints what it would run)
SOLAR_PYTHON=echo "$solar" translate model.py >"$t/tr" 2>&1 || say "installed translate: exit $?"
case "$(cat "$t/tr")" in
  "$root/bin/../share/solar/translate/run.py model.py") ;;
  *) say "installed translate runs: $(cat "$t/tr")";;
esac
# validate finds the installed harness: with a Python that only prints its arguments, the
# harness step "runs" and names the harness it was given
printf 'air 1;\nparam N = 4;\nin x[N]: f32;\nout y[N]: f32;\nkernel k { for i in 0..N { y[i] = x[i]; } }\n' >m.air
: >m.py
SOLAR_PYTHON=echo "$solar" validate m.air --ref m.py >"$t/val" 2>&1
grep -q "$root/bin/../share/solar/validate/harness.py" "$t/val" ||
  { say "installed validate does not run the installed harness:"; cat "$t/val"; }
exit $fail
