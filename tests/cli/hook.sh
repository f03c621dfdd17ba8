#!/bin/sh
# The solar-report pre-commit hook (scripts/solar_report_hook.py): a short terminal summary,
# one line per model, no Markdown; solar's exit status; the Markdown kept where --md says.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$root/tests/report" || exit 2
fail=0
say() { echo "$*"; fail=1; }
hook="$root/scripts/solar_report_hook.py"
SOLAR=$solar python3 "$hook" manifest.json --max-headroom 2 >"$t/out" 2>"$t/err"; rc=$?
[ "$rc" = 1 ] || say "hook with a failing gate: exit $rc, expected 1"
cat >"$t/want" <<'W'
solar report: FAIL: 2 of 4 models over the limits (bound cache-aware, max headroom 2x)
  mlp_block         headroom    1.81x  limited by tensor.bf16   ok
  attention_causal  headroom     118x  limited by tensor.bf16   FAIL headroom 118x > 2x
  policy-orin       headroom     133x  limited by l2            FAIL headroom 133x > 2x
  softmax           headroom        -  limited by dram          ok
W
diff -u "$t/want" "$t/out" || say "hook summary differs"
[ -s "$t/err" ] && { say "hook wrote to stderr:"; cat "$t/err"; }
grep -q '|' "$t/out" && say "hook printed Markdown"
SOLAR=$solar python3 "$hook" manifest.json --md "$t/r.md" >"$t/out" 2>&1 || say "passing hook: exit $?"
head -n 1 "$t/out" | grep -q '^solar report: PASS: 0 of 4 models' || say "passing hook: $(head -n 1 "$t/out")"
grep -q "^Markdown report: $t/r.md\$" "$t/out" || say "hook does not name the Markdown file"
grep -q '^## solar: speed-of-light headroom' "$t/r.md" || say "hook did not keep the Markdown in --md"
SOLAR=$solar python3 "$hook" nosuch.json >"$t/out" 2>"$t/err"; rc=$?
[ "$rc" = 2 ] || say "hook on a missing manifest: exit $rc, expected 2"
[ -s "$t/out" ] && say "hook on a missing manifest printed a summary"
grep -q "nosuch.json" "$t/err" || say "hook on a missing manifest: no message"
exit $fail
