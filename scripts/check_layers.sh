#!/bin/sh
# check_layers.sh ROOT - the pipeline's layering, checked on every build (docs/layout.md).
#
# Each stage folder may include headers of the stages below it only, and the three outside
# libraries only where they belong: ISL and GMP (exact counting) in analysis/, cJSON (JSON in
# and out) in devices/, analysis/ (count --symbolic's JSON) and cli/.  Folders not listed (tests/,
# bench/, new stages until they are added here) are not checked.  Every violation prints
#   FILE:LINE: error: STAGE/ may not include WHAT (...)
# and the script exits 1; the build stops before compiling anything.
root=${1:-.}
cd "$root" || exit 2

# stage: the stages its files may include (besides its own folder)
allowed() {
  case $1 in
    diag) echo "" ;;
    ir) echo "diag" ;;
    frontend) echo "diag ir" ;;
    devices) echo "diag" ;;
    analysis) echo "diag ir frontend devices" ;;
    roofline) echo "diag ir frontend devices analysis" ;;
    validate) echo "diag ir frontend devices analysis" ;;
    api) echo "diag ir frontend devices analysis roofline validate" ;;
    report) echo "diag ir frontend devices analysis roofline validate api" ;;
    search) echo "diag ir frontend devices analysis roofline validate api report" ;;
    cli) echo "*" ;;
    *) echo "-" ;;
  esac
}
# stage: the outside libraries whose headers its files may include
libraries() {
  case $1 in
    analysis) echo "isl gmp cjson" ;;
    devices) echo "cjson" ;;
    report) echo "cjson" ;;
    search) echo "cjson" ;;
    cli) echo "cjson" ;;
    *) echo "" ;;
  esac
}

status=0
for stage in diag ir frontend devices analysis roofline validate api report search cli; do
  [ -d "$stage" ] || continue
  ok=$(allowed "$stage")
  libs=$(libraries "$stage")
  for f in "$stage"/*.c "$stage"/*.h "$stage"/*.y "$stage"/*.l; do
    [ -f "$f" ] || continue
    # "#include" lines only (a generated program's text inside a string starts with a quote)
    grep -n '^[[:space:]]*#[[:space:]]*include' "$f" | while IFS= read -r hit; do
      line=${hit%%:*}
      text=${hit#*:}
      case $text in
        *'<isl/'*) lib=isl ;;
        *'<gmp.h>'*) lib=gmp ;;
        *'<cjson/'*|*'<cJSON.h>'*|*'"cJSON.h"'*) lib=cjson ;;
        *) lib= ;;
      esac
      if [ -n "$lib" ]; then
        case " $libs " in
          *" $lib "*) ;;
          *) echo "$f:$line: error: $stage/ may not include $lib's headers ($lib is private to: $(for s in analysis devices report search cli; do case " $(libraries $s) " in *" $lib "*) printf '%s/ ' $s ;; esac; done | sed 's/ $//'))"
             echo x ;;
        esac
        continue
      fi
      # "../STAGE/x.h" or "STAGE/x.h"
      dep=$(printf '%s\n' "$text" | sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(\.\./\)\{0,1\}\([a-z_]*\)/.*|\2|p')
      [ -n "$dep" ] && [ "$dep" != "$stage" ] || continue
      [ "$ok" = "*" ] && continue
      case " $ok " in
        *" $dep "*) ;;
        *) echo "$f:$line: error: $stage/ may not include $dep/ (a stage includes only the stages below it: docs/layout.md)"
           echo x ;;
      esac
    done
  done
done >"${TMPDIR:-/tmp}/solar_layers.$$"
if grep -q . "${TMPDIR:-/tmp}/solar_layers.$$"; then
  grep -v '^x$' "${TMPDIR:-/tmp}/solar_layers.$$" >&2
  status=1
fi
rm -f "${TMPDIR:-/tmp}/solar_layers.$$"
exit $status
