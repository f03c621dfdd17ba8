#!/bin/sh
# Shell completion (cli/help.c, written from the option tables of cli/commands.c): the bash
# script that `make install` installs completes `solar an<TAB>` to analyze, `solar analyze
# --dev<TAB>` to --device, a device name from `solar device list`, an enum's words, device's
# subcommands, and offers exactly the options each command's parser takes (cross-checked with
# the parser's "it takes" refusal).  The zsh script parses and hands zsh the same (zsh is a test
# dependency, scripts/deps.sh; skipped where absent).
solar=$1 build=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
say() { echo "$*"; fail=1; }
command -v bash >/dev/null || { echo "no bash: skipped"; exit 0; }
script=$build/completion/solar
[ -f "$script" ] || say "no $script (the completion target of the build)"
"$solar" help --completion bash -o "$t/solar.bash" || say "solar help --completion bash: exit $?"
cmp -s "$t/solar.bash" "$script" || say "the built completion differs from solar help --completion bash"
cat >"$t/drive.bash" <<DRIVE
. "$t/solar.bash"
comp() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\$# - 1)); COMPREPLY=(); _solar; echo "\${COMPREPLY[*]}"; }
comp "$solar" an
comp "$solar" analyze --dev
comp "$solar" analyze x.air --device h100-s
comp "$solar" analyze --math ''
comp "$solar" validate --backend c
comp "$solar" device ''
comp "$solar" count --format ''
comp "$solar" analyze --l2 ''
comp "$solar" count -
comp "$solar" advise x.air --previous d
comp "$solar" report m.json --bound ''
comp "$solar" collective all_reduce 1GB --device hgx-h2
_solar_devices | tr '\n' ' '; echo
DRIVE
bash "$t/drive.bash" >"$t/got" 2>"$t/err" || say "the bash completion failed: $(cat "$t/err")"
[ -s "$t/err" ] && say "the bash completion wrote to stderr: $(cat "$t/err")"
expect() { # LINE WANT
  got=$(sed -n "$1p" "$t/got")
  [ "$got" = "$2" ] || say "completion $1: '$got', want '$2'"
}
expect 1 "analyze"
expect 2 "--device"
expect 3 "h100-sxm"
# systems complete as devices do; the list's headers ("name", "system") and its blank line never
expect 12 "hgx-h200-8 hgx-h200-ib"
sed -n 13p "$t/got" | grep -qE '(^| )(name|system)( |$)|  ' && say "device names: $(sed -n 13p "$t/got")"
sed -n 13p "$t/got" | grep -q '^a100-sxm-80gb b200 gb200 .*hgx-h200-8 ' || say "device names: $(sed -n 13p "$t/got")"
expect 4 "strict tf32"
expect 5 "cpu cuda"
expect 6 "list show probe"
expect 7 "table json"
expect 8 "warm cold"
expect 9 "-D --no-assume --json --format --symbolic --math -o --help"
expect 10 "data_reuse datapath"
expect 11 "unfused fused cache-aware"
# every command's options are those its parser takes
n=0
for c in check fmt count graph analyze provision sweep report validate advise triage translate; do
  "$solar" "$c" --vary x --dot --symbolic --ref x >/dev/null 2>"$t/refuse2"
  takes=$(sed -n 's/.*(it takes \(.*\))$/\1/p' "$t/refuse2" | tr -d ',')
  [ -n "$takes" ] || { say "solar $c: no 'it takes' list"; continue; }
  n=$((n + 1))
  printf '. "%s"\nCOMP_WORDS=(solar %s -); COMP_CWORD=2; _solar; echo "${COMPREPLY[*]}"\n' \
    "$t/solar.bash" "$c" >"$t/one.bash"
  got=$(bash "$t/one.bash")
  [ "$got" = "$takes --help" ] || say "solar $c -<TAB>: '$got', its parser takes '$takes'"
done
[ "$n" = 12 ] || say "checked the options of $n commands, not 12"
if command -v zsh >/dev/null; then
  "$solar" help --completion zsh -o "$t/_solar" || say "solar help --completion zsh: exit $?"
  zsh -n "$t/_solar" || say "the zsh completion does not parse"
  cmp -s "$t/_solar" "$build/completion/_solar" || say "the built zsh completion differs"
  # what it hands zsh's completion system, with _arguments and _describe stubbed to print
  grep -v '^_solar "\$@"$' "$t/_solar" >"$t/_solar.src"
  cat >"$t/drive.zsh" <<ZDRIVE
_arguments() { print -r -- "ARGS: \$*"; }
_describe() { print -r -- "DESCRIBE: \${(P)2}"; }
source "$t/_solar.src"
words=(solar an); CURRENT=2; _solar
words=(solar analyze --dev); CURRENT=3; _solar
words=(solar device ''); CURRENT=3; _solar
ZDRIVE
  zsh -f "$t/drive.zsh" >"$t/zgot" 2>&1 || say "the zsh completion failed: $(cat "$t/zgot")"
  grep -q '^DESCRIBE: .*analyze:speed-of-light bounds' "$t/zgot" || say "zsh: no analyze among the commands"
  grep '^ARGS: ' "$t/zgot" | sed -n 1p | grep -q -- '--device\[[^]]*\]:device:_solar_devices' ||
    say "zsh: analyze --device does not complete devices: $(sed -n 2p "$t/zgot" | cut -c1-200)"
  grep '^ARGS: ' "$t/zgot" | sed -n 1p | grep -q -- '--math\[[^]]*\]:value:(strict tf32)' ||
    say "zsh: analyze --math does not offer strict tf32"
  grep '^ARGS: ' "$t/zgot" | sed -n 2p | grep -q -- "1:what:(list show probe)" ||
    say "zsh: device does not offer list show probe"
fi
"$solar" help --completion fish >/dev/null 2>"$t/err" && say "--completion fish: exit 0"
grep -q "expects bash or zsh, not 'fish'" "$t/err" || say "--completion fish: $(cat "$t/err")"
exit $fail
