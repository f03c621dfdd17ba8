#!/bin/sh
# Per-command help (cli/main.c): `solar help CMD` and `solar CMD --help` print the same usage,
# every option the command's parser takes (cross-checked against the parser's own "it takes"
# list), a text for each, and examples that run; `solar help` lists the commands; an unknown
# command is an error with a suggestion; `solar help --man` is a man page groff reads cleanly.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fail=0
say() { echo "$*"; fail=1; }

"$solar" help >"$t/list" 2>"$t/err" || say "solar help: exit $?"
"$solar" --help >"$t/list2" 2>&1 || say "solar --help: exit $?"
cmp -s "$t/list" "$t/list2" || say "solar help and solar --help differ"
[ -s "$t/err" ] && say "solar help wrote to stderr"
cmds="check fmt count graph analyze device provision sweep report validate translate triage advise"
for c in $cmds help; do
  grep -q "^  $c " "$t/list" || say "solar help does not list $c"
done

for c in $cmds; do
  "$solar" help "$c" >"$t/h" 2>"$t/err"; rc=$?
  [ "$rc" = 0 ] || say "solar help $c: exit $rc"
  [ -s "$t/err" ] && say "solar help $c wrote to stderr"
  "$solar" "$c" --help >"$t/h2" 2>&1
  cmp -s "$t/h" "$t/h2" || say "solar help $c and solar $c --help differ"
  head -n 1 "$t/h" | grep -q "^usage: solar $c " || say "solar help $c: no usage line"
  grep -q '^examples:' "$t/h" || say "solar help $c: no examples"
  # The options the parser accepts for c, from its refusal of one c does not take.
  for bad in --dot --vary --ref --symbolic; do
    "$solar" "$c" "$bad" x >/dev/null 2>"$t/refuse"
    takes=$(sed -n 's/.*(it takes \(.*\))$/\1/p' "$t/refuse" | tr -d ',')
    [ -n "$takes" ] && break
  done
  [ -n "$takes" ] || say "solar $c: no 'it takes' list to check the help against"
  for opt in $takes; do
    line=$(grep -E -- "^  $opt( |$)" "$t/h") || { say "solar help $c: option $opt missing"; continue; }
    # a description on the line, or on the next line when the name is long
    if ! echo "$line" | grep -Eq -- "^  $opt( [^ ]+)? +[a-z(]"; then
      grep -A1 -E -- "^  $opt( |$)" "$t/h" | tail -n 1 | grep -Eq '^ {25}[a-z(]' ||
        say "solar help $c: option $opt has no description"
    fi
  done
  # no option in the help that the parser refuses
  for opt in $(sed -n 's/^  \(-[-a-zA-Z0-9]*\).*/\1/p' "$t/h" | sort -u); do
    case " $takes -h " in *" $opt "*) ;; *) [ "$opt" = "-h," ] || say "solar help $c lists $opt, which $c does not take";; esac
  done
done

# translate's options are parsed twice, by solar (the table) and by the translator itself
# (translate/solar_translate/cli.py, for run.py run alone): the two must name the same ones.
if command -v python3 >/dev/null; then
  py=$(python3 "$root/translate/run.py" --help | grep -o -- '-[-a-zA-Z]*' | sed 's/^-D.*/-D/' | sort -u)
  c=$("$solar" help translate | sed -n 's/^  \(-[-a-zA-Z0-9]*\).*/\1/p' | grep -v '^-h' | sort -u)
  [ "$py" = "$c" ] || say "translate's options differ: run.py --help: $(echo $py), solar help translate: $(echo $c)"
fi

# The examples of the commands that need no GPU, Python or manifest run as written.
mkdir "$t/run" && ln -s "$root/examples" "$t/run/examples"
for c in check fmt count graph analyze device provision sweep; do
  "$solar" help "$c" | sed -n '/^examples:/,$p' | sed -n 's/^  solar //p' | grep -v probe |
  while read -r ex; do
    (cd "$t/run" && eval "\"$solar\" $ex" >/dev/null 2>"$t/exerr") ||
      { echo "example 'solar $ex' failed:"; cat "$t/exerr"; echo x >>"$t/exfail"; }
  done
done
[ -f "$t/exfail" ] && fail=1

"$solar" help anlyze >/dev/null 2>"$t/err"; rc=$?
[ "$rc" = 2 ] || say "solar help anlyze: exit $rc, expected 2"
grep -qx "solar: no command 'anlyze' (did you mean 'analyze'?); try 'solar help'" "$t/err" ||
  { say "solar help anlyze:"; cat "$t/err"; }
"$solar" help xyz >/dev/null 2>"$t/err"; rc=$?
[ "$rc" = 2 ] || say "solar help xyz: exit $rc, expected 2"
grep -qx "solar: no command 'xyz'; try 'solar help'" "$t/err" || { say "solar help xyz:"; cat "$t/err"; }
"$solar" anlyze x.air >/dev/null 2>"$t/err"; rc=$?
[ "$rc" = 2 ] || say "solar anlyze: exit $rc, expected 2"
grep -q "unknown command 'anlyze' (did you mean 'analyze'?)" "$t/err" || { say "solar anlyze:"; cat "$t/err"; }

"$solar" help --man -o "$t/solar.1" || say "solar help --man: exit $?"
head -n 1 "$t/solar.1" | grep -q '^\.TH SOLAR 1' || say "solar.1 has no .TH line"
for c in $cmds; do grep -q "^\.SS \"solar $c " "$t/solar.1" || say "solar.1 lacks $c"; done
if command -v groff >/dev/null; then
  w=$(groff -man -Tutf8 -ww -z "$t/solar.1" 2>&1)
  [ -z "$w" ] || { say "groff warns on solar.1:"; echo "$w"; }
fi
exit $fail
