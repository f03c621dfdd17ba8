#!/bin/sh
# The demo block of README.md is what `make demo` prints: the build's "built build/solar", then
# each line of the Makefile's demo recipe as make echoes it, followed by what it prints (run
# here with the solar under test).  Usage: readme_demo.sh SOLAR SOURCE_ROOT
# UPDATE=1 rewrites the block with what the demo prints.
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
if [ "${UPDATE:-0}" = 1 ]; then
  # Rewrites the block in place with what the demo printed.
  awk -v want="$t/want" '
    /^What `make demo` prints/ { f = 1; print; next }
    f == 1 && /^```$/ { print; while ((getline l < want) > 0) print l; f = 2; next }
    f == 2 { if (/^```$/) { print; f = 3 } ; next }
    { print }' README.md >"$t/new" && cat "$t/new" >README.md
  exit 0
fi
diff -u "$t/readme" "$t/want"
