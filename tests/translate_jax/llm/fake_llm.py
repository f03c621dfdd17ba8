#!/usr/bin/env python3
"""A scripted LLM for tests/translate_jax/run.sh llm: reads the prompt on stdin and answers from
the attempt count kept in the state file (argv[1]).  Attempt 1: AIR with a syntax error.
Attempt 2 (only if the prompt carries attempt 1's AIR and solar check's diagnostic): AIR that
checks but computes a running sum.  Attempt 3 (only if the prompt carries the validation
mismatch): the right AIR.  A prompt without the expected feedback gets an empty answer, so a
loop that does not feed back fails the test."""
import sys

HEAD = """air 1;
param ROWS = 24, COLS = 40;
in  x[ROWS, COLS]: f32;
out y[ROWS, COLS]: f32;
kernel cummax {
  for i in 0..ROWS {
    y[i, 0] = x[i, 0];
    for j in 1..COLS {
"""
SYNTAX = HEAD + "      y[i, j] = max(y[i, j - 1], x[i, j])\n    }\n  }\n}\n"
WRONG = HEAD + "      y[i, j] = y[i, j - 1] + x[i, j];\n    }\n  }\n}\n"
RIGHT = HEAD + "      y[i, j] = max(y[i, j - 1], x[i, j]);\n    }\n  }\n}\n"

state = sys.argv[1]
prompt = sys.stdin.read()
try:
    n = int(open(state).read()) + 1
except OSError:
    n = 1
open(state, "w").write(str(n))
ok = "unsupported primitive cummax" in prompt and "## Example: softmax.py" in prompt \
    and "jax.lax.cummax(x, axis=1)" in prompt
if n == 1 and ok and "## Your previous answer" not in prompt:
    sys.stdout.write("```air\n" + SYNTAX + "```\n")
elif n == 2 and ok and "x[i, j])\n    }" in prompt and "error:" in prompt:
    sys.stdout.write(WRONG)
elif n == 3 and ok and "y[i, j - 1] + x[i, j]" in prompt and "FAIL" in prompt:
    sys.stdout.write(RIGHT)
