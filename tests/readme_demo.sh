#!/bin/sh
# The demo block of README.md is what `make demo` prints: the build's "built build/solar", then
# each line of the Makefile's demo recipe as make echoes it, followed by what it prints (run
# here with the solar under test).  Usage: readme_demo.sh SOLAR SOURCE_ROOT
solar=$1 root=$2
cd "$root" || exit 1
demo=$(sed -n 's/^DEMO ?= //p' Makefile) dev=$(sed -n 's/^DEMO_DEVICE ?= //p' Makefile)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
sed -n '/^demo:/,/^$/p' Makefile | sed -n 's/^\t//p' |
  sed "s#\$(DEMO_DEVICE)#$dev#g; s#\$(DEMO)#$demo#g" >"$t/recipe"
[ -s "$t/recipe" ] || { echo "no demo recipe in Makefile"; exit 1; }
echo "built build/solar" >"$t/want"
while IFS= read -r line; do
  echo "$line"
  cmd=$(printf '%s\n' "$line" | sed "s#^\./build/solar#\"$solar\"#")
  eval "$cmd" || { echo "failed: $line"; exit 1; }
done <"$t/recipe" >>"$t/want"
awk '/^What `make demo` prints/ { f = 1; next }
     f && /^```$/ { if (inb) exit; inb = 1; next }
     inb' README.md >"$t/readme"
[ -s "$t/readme" ] || { echo "no demo block in README.md"; exit 1; }
diff -u "$t/readme" "$t/want"
