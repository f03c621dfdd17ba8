#!/bin/sh
# The guarantee of every command that runs children (docs/translate.md "Interrupts and
# limits", docs/validate.md): a run ended by SIGINT, SIGTERM, SIGHUP or a time limit leaves no
# process (the child's whole process group is stopped), no temporary file or folder (TMPDIR
# is checked empty) and no partial output (-o absent); it ends by the signal (128 + it), or
# with exit 2 and its message for a limit.  One case per ctest:
#   int term hup   solar translate, signalled while its translator runs
#   time_limit     a translator that never ends, under SOLAR_TIME_LIMIT=2
#   timeout        the same under --timeout 2 (SOLAR_TIME_LIMIT=0)
#   pause          a translator that pauses the limits (its control pipe) for 3 s, and one
#                  that starts them afresh each second (--batch-list's cases): not stopped
#   triage         solar triage signalled while it translates a candidate
#   advise         solar advise signalled while it translates the model
#   fork           a triage candidate whose translator leaves a process running: gone after
#   real_int       the real translator (torch) signalled in its validation: no traceback
#   real_llm       --llm (jax): SIGTERM while the LLM command runs its second attempt: OUT is
#                  the old file, not the first attempt's AIR (it used to be written per attempt)
#   real_loop      the real translator on a model that loops forever, under SOLAR_TIME_LIMIT=45
#                  (time for torch to start on a loaded machine: the loop must be reached)
# The translator is a shell script (SOLAR_PYTHON) except in the real_* cases, skipped (77)
# without a Python that has torch.  Before the launcher (validate/proc.c) every fake case
# failed: the translator was exec'd or forked, never stopped, its temporaries and its child left
# (pause: no control pipe).
#   translate_interrupt.sh SOLAR CASE ROOT [PYTHON]
solar=$1 case=$2 root=$3 python=$4
t=$(mktemp -d "${TMPDIR:-/tmp}/solar-tri-XXXXXX")
trap 'rm -rf "$t"' EXIT
mkdir "$t/tmp" "$t/work"
fail=0
no() { echo "FAIL ($case): $*"; fail=1; }

# The fake translator: `fake RUN_PY ARGS...`, what it does set by FAKE.  It records its pid and
# its child's in $t/pids, makes a folder in its TMPDIR as Python's mkdtemp would, and says it
# has started.
cat >"$t/fake" <<EOF
#!/bin/sh
echo \$\$ >>"$t/pids"
mkdir -p "\$TMPDIR/solar-translate-fake" && echo data >"\$TMPDIR/solar-translate-fake/x"
sleep 300 &
echo \$! >>"$t/pids"
case \$FAKE in
hang) touch "$t/started"; while :; do sleep 1; done ;;
pause) eval "printf p >&\$SOLAR_LIMIT_FD"; sleep 3; eval "printf r >&\$SOLAR_LIMIT_FD"; exit 0 ;;
steps) for i in 1 2 3 4; do sleep 1; eval "printf n >&\$SOLAR_LIMIT_FD"; done; exit 0 ;;
exit1) echo "cannot read it" >&2; exit 1 ;;
esac
EOF
chmod +x "$t/fake"
printf 'import torch\n' >"$t/work/m.py"

# start CMD...: runs it in the background with SIGINT at its default (a `&` job of sh ignores
# it) and waits until the translator has started; pid is the command's.
start() {
  rm -f "$t/started"
  env --default-signal=INT "$@" >"$t/out" 2>"$t/err" &
  pid=$!
  n=0
  while [ ! -f "$t/started" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
  [ -f "$t/started" ] || { no "the translator never started: $(cat "$t/out" "$t/err")"; kill -KILL $pid; exit 1; }
}
# after RC EXPECTED: the exit status, no process of the run, nothing in TMPDIR, no output
after() {
  [ "$1" = "$2" ] || no "exit status $1, expected $2: $(cat "$t/err")"
  sleep 0.2
  for p in $(cat "$t/pids" 2>/dev/null); do
    if alive "$p"; then no "process $p ($(ps -o args= -p "$p")) still runs"; kill -KILL "$p"; fi
  done
  left=$(ls -A "$t/tmp")
  [ -z "$left" ] || no "left in TMPDIR: $left"
  [ ! -e "$t/work/out.air" ] || no "left the output out.air"
  left=$(find "$t/work" -name '*.tmp*' -o -name '*.log')
  [ -z "$left" ] || no "left temporaries: $left"
  : >"$t/pids"
}
# alive PID: it runs (a zombie, dead but not reaped by an init that does not reap, does not)
alive() { st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
signal_rc() { case $1 in INT) echo 130 ;; TERM) echo 143 ;; HUP) echo 129 ;; esac; }
D=$root/devices/h200-sxm.json
export TMPDIR="$t/tmp"

case $case in
int|term|hup)
  sig=$(echo "$case" | tr a-z A-Z)
  start env SOLAR_PYTHON="$t/fake" FAKE=hang "$solar" translate "$t/work/m.py" -o "$t/work/out.air"
  kill -"$sig" $pid
  wait $pid
  after $? "$(signal_rc "$sig")"
  ;;
time_limit|timeout)
  if [ "$case" = time_limit ]; then lim=2 opt=; else lim=0 opt="--timeout 2"; fi
  begin=$(date +%s)
  # shellcheck disable=SC2086
  SOLAR_TIME_LIMIT=$lim SOLAR_PYTHON="$t/fake" FAKE=hang timeout 60 \
    "$solar" translate "$t/work/m.py" -o "$t/work/out.air" $opt >"$t/out" 2>"$t/err"
  rc=$? took=$(( $(date +%s) - begin ))
  after $rc 2
  if [ "$case" = time_limit ]; then
    grep -qx "solar: error: the translation exceeded its time limit (SOLAR_TIME_LIMIT seconds, default 120) and was stopped" "$t/err" ||
      no "not the time-limit message: $(cat "$t/err")"
  else
    grep -qx "solar: the translation ran past --timeout (2 s) and was stopped; nothing was written" "$t/err" ||
      no "not the --timeout message: $(cat "$t/err")"
  fi
  [ "$took" -le 10 ] || no "took $took s with a 2 s limit"
  ;;
pause)
  SOLAR_TIME_LIMIT=1 SOLAR_PYTHON="$t/fake" FAKE=pause timeout 60 \
    "$solar" translate "$t/work/m.py" -o "$t/work/out.air" --timeout 1 >"$t/out" 2>"$t/err"
  after $? 0
  # 4 s in steps of 1 s, each a new step ("n", as --batch-list's cases): under 2 s limits
  SOLAR_TIME_LIMIT=2 SOLAR_PYTHON="$t/fake" FAKE=steps timeout 60 \
    "$solar" translate "$t/work/m.py" -o "$t/work/out.air" --timeout 2 >"$t/out" 2>"$t/err"
  after $? 0
  ;;
triage|advise)
  mkdir "$t/work/pool"
  cp "$root/tests/triage/pools/scale/ref.air" "$t/work/pool/ref.air"
  cp "$t/work/m.py" "$t/work/pool/cand_x.py"
  if [ "$case" = triage ]; then
    start env SOLAR_PYTHON="$t/fake" FAKE=hang "$solar" triage "$t/work/pool" --device "$D" \
      --cache "$t/work/cache"
  else
    start env SOLAR_PYTHON="$t/fake" FAKE=hang "$solar" advise "$t/work/pool/cand_x.py" \
      --device "$D" --measured 1ms
  fi
  kill -TERM $pid
  wait $pid
  after $? 143
  ;;
fork)
  mkdir "$t/work/pool"
  cp "$root/tests/triage/pools/scale/ref.air" "$t/work/pool/ref.air"
  cp "$t/work/m.py" "$t/work/pool/cand_x.py"
  SOLAR_PYTHON="$t/fake" FAKE=exit1 timeout 60 "$solar" triage "$t/work/pool" --device "$D" \
    --cache "$t/work/cache" >"$t/out" 2>"$t/err"
  rc=$?
  grep -q "cand_x.py: not translatable: cannot read it" "$t/out" || no "not the translator's note: $(cat "$t/out")"
  after $rc 0
  ;;
real_int|real_loop)
  [ -n "$python" ] && "$python" -c 'import torch' 2>/dev/null || { echo "no Python with torch: skipped"; exit 77; }
  if [ "$case" = real_int ]; then body='if x.device.type != "meta":
            open("'$t'/started", "w").write(str(os.getpid()))
            time.sleep(300)'
  else body='open("'$t'/started", "w").close()
        while True:
            pass'
  fi
  cat >"$t/work/m.py" <<PY
import os
import time
import torch
import torch.nn as nn

M, N = 4, 8


class Model(nn.Module):
    def forward(self, x):
        $body
        return torch.sum(x, dim=1)


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
PY
  if [ "$case" = real_int ]; then
    start env SOLAR_PYTHON="$python" "$solar" translate "$t/work/m.py" -o "$t/work/out.air"
    { cat "$t/started"; echo; pgrep -f "$t/work/m.py"; } >>"$t/pids"
    kill -INT $pid
    wait $pid
    after $? 130
  else
    SOLAR_TIME_LIMIT=45 SOLAR_PYTHON="$python" timeout 150 "$solar" translate "$t/work/m.py" \
      -o "$t/work/out.air" >"$t/out" 2>"$t/err"
    after $? 2
    [ -f "$t/started" ] || no "the model's forward never ran"
    grep -q "the translation exceeded its time limit" "$t/err" || no "no time-limit message: $(cat "$t/err")"
  fi
  ! grep -q Traceback "$t/err" || no "a traceback: $(cat "$t/err")"
  ;;
real_llm)
  [ -n "$python" ] && "$python" -c 'import jax' 2>/dev/null || { echo "no Python with jax: skipped"; exit 77; }
  # an LLM that answers garbage, then hangs: SIGTERM in its second call; OUT stays the old one
  printf '#!/bin/sh\ncat >/dev/null\nif [ -f "%s/said" ]; then touch "%s/started"; sleep 300; fi\ntouch "%s/said"; echo garbage\n' \
    "$t" "$t" "$t" >"$t/llm"
  chmod +x "$t/llm"
  echo old >"$t/work/out.air"
  start env SOLAR_PYTHON="$python" "$solar" translate "$root/tests/translate_jax/llm/cummax.py" \
    --llm "$t/llm" -o "$t/work/out.air" --log "$t/llm.jsonl"
  pgrep -f "$t/llm" >>"$t/pids"
  kill -TERM $pid
  wait $pid
  rc=$?
  [ "$(cat "$t/work/out.air")" = old ] || no "OUT was rewritten: $(head -c 200 "$t/work/out.air")"
  rm "$t/work/out.air"
  after $rc 143
  ! grep -q Traceback "$t/err" || no "a traceback: $(cat "$t/err")"
  ;;
*) echo "unknown case $case"; exit 2 ;;
esac
exit $fail
