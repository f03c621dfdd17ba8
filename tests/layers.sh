#!/bin/sh
# tests/layers.sh ROOT - scripts/check_layers.sh passes on the tree and catches planted
# violations: a lower stage including a higher one, ISL outside analysis/, cJSON in roofline/.
root=$1
check=$root/scripts/check_layers.sh
sh "$check" "$root" || { echo "the tree breaks its own layering (above)"; exit 1; }
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/ir" "$t/cli" "$t/roofline" "$t/analysis" "$t/frontend"
printf '#include "arena.h"\n#include "../roofline/roofline.h"\n' >"$t/ir/x.c"
printf '#include <stdio.h>\n\n#include <isl/val.h>\n#include "analysis/work.h"\n' >"$t/cli/y.c"
printf '#include <cjson/cJSON.h>\n#include "../analysis/work.h"\n' >"$t/roofline/z.c"
printf '#include <isl/set.h>\n#include "../roofline/r.h"\n' >"$t/analysis/ok_isl.c"
printf 'static const char *s = "#include <isl/val.h>";\n#include "../diag/diag.h"\n' >"$t/frontend/w.c"
sh "$check" "$t" 2>"$t/err"
rc=$?
cat >"$t/want" <<'WANT'
ir/x.c:2: error: ir/ may not include roofline/ (a stage includes only the stages below it: docs/layout.md)
analysis/ok_isl.c:2: error: analysis/ may not include roofline/ (a stage includes only the stages below it: docs/layout.md)
roofline/z.c:1: error: roofline/ may not include cjson's headers (cjson is private to: analysis/ devices/ report/ search/ cli/)
cli/y.c:3: error: cli/ may not include isl's headers (isl is private to: analysis/)
WANT
[ $rc = 1 ] || { echo "exit $rc for planted violations, expected 1"; exit 1; }
diff "$t/want" "$t/err" || { echo "wrong diagnostics (above: - expected, + got)"; exit 1; }
echo "layers: ok"
