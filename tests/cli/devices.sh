#!/bin/sh
# Devices by name (devices/device.c, docs/devices.md "Devices by name"): --device NAME finds
# the shipped descriptor, $SOLAR_DEVICE_PATH comes first, a descriptor's "base" may be a name,
# a missing device is a clear error (exit 2) with a suggestion, and `solar device list` shows
# every shipped descriptor in table and JSON form.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$root" || exit 2
fail=0
say() { echo "$*"; fail=1; }
A=examples/softmax.air
unset SOLAR_DEVICE_PATH

"$solar" analyze $A --device devices/h100-sxm.json >"$t/path" 2>&1 || say "by path: exit $?"
"$solar" analyze $A --device h100-sxm >"$t/name" 2>&1 || say "by name: exit $?"
cmp -s "$t/path" "$t/name" || { say "--device h100-sxm differs from the path:"; diff "$t/path" "$t/name"; }
"$solar" analyze $A --device h100-sxm.json >"$t/name2" 2>&1 || say "by NAME.json: exit $?"
cmp -s "$t/path" "$t/name2" || say "--device h100-sxm.json differs from the path"
# from another folder, where no devices/ is near
(cd "$t" && "$solar" analyze "$root/$A" --device h100-sxm >"$t/far" 2>&1) || say "by name elsewhere: exit $?"
cmp -s "$t/path" "$t/far" || say "--device h100-sxm from another folder differs"

check_err() { # args... | expected stderr | expected exit
  want=$1 code=$2; shift 2
  "$solar" "$@" >"$t/out" 2>"$t/err"; rc=$?
  [ "$rc" = "$code" ] || say "solar $*: exit $rc, expected $code"
  printf '%s\n' "$want" | diff -u - "$t/err" >/dev/null || { say "solar $*:"; diff -u - "$t/err" <<W
$want
W
  }
  [ -s "$t/out" ] && say "solar $*: wrote to stdout"
}
check_err "solar: no device 'h100-sx'; try 'solar device list' (did you mean 'h100-sxm'?)" 2 \
  analyze $A --device h100-sx
check_err "solar: no device 'nosuchgpu'; try 'solar device list'" 2 analyze $A --device nosuchgpu
check_err "solar: no device 'h200'; try 'solar device list' (did you mean 'h200-sxm'?)" 2 \
  provision $A --device h200 --target-time 1ms
check_err "solar: no device 'a100'; try 'solar device list' (did you mean 'a100-sxm-80gb'?)" 2 \
  device show a100
check_err "devices/nosuch.json: cannot read: No such file or directory" 2 \
  analyze $A --device devices/nosuch.json

# SOLAR_DEVICE_PATH first: a folder with a device of its own and one shadowing a shipped name,
# each naming its base by name.
mkdir "$t/d1" "$t/d2"
printf '{"schema": 1, "base": "h100-sxm", "name": "my H100 at 3 TB/s",\n "memory": [{"level": "dram", "bandwidth_bytes_per_s": {"value": 3e12, "status": "hypothetical", "source": "test"}}]}\n' >"$t/d2/mygpu.json"
printf '{"schema": 1, "base": "h200-sxm.json", "name": "shadowed H100"}\n' >"$t/d1/h100-sxm.json"
SOLAR_DEVICE_PATH="$t/d1::$t/d2" "$solar" device show mygpu >"$t/show" 2>"$t/err" ||
  { say "SOLAR_DEVICE_PATH device: exit"; cat "$t/err"; }
grep -q '"name": "my H100 at 3 TB/s"' "$t/show" || say "mygpu: wrong name"
grep -q '"value": 3e+12' "$t/show" || say "mygpu: bandwidth not applied"
# its base h100-sxm is found in d1 first: the shadowing file, itself based on h200-sxm
grep -q '"value": 62914560' "$t/show" || say "mygpu: its base h100-sxm is not d1's (60 MiB L2 from h200-sxm)"
SOLAR_DEVICE_PATH="$t/d1:$t/d2" "$solar" device show h100-sxm >"$t/show" 2>"$t/err" || say "shadow: exit"
grep -q '"name": "shadowed H100"' "$t/show" || say "SOLAR_DEVICE_PATH does not come first"
"$solar" device show h100-sxm | grep -q '"name": "NVIDIA H100 SXM5"' || say "shipped h100-sxm not shown"

# device list: every shipped descriptor, one row each, and JSON with the same names
"$solar" device list >"$t/list" 2>"$t/err" || say "device list: exit $?"
[ -s "$t/err" ] && { say "device list wrote to stderr:"; cat "$t/err"; }
head -n 1 "$t/list" | grep -q '^name  *device  *DRAM  *tensor peak (dense)  *L2  *SMs  *file$' ||
  say "device list: header"
for f in devices/*.json; do
  n=$(basename "$f" .json)
  grep -q "^$n .*$root/devices/$n.json\$" "$t/list" || say "device list lacks $n"
done
grep -q '^h100-sxm  *NVIDIA H100 SXM5  *3.35 TB/s  *2.14 PFLOP/s f8  *52.4 MB  *132 ' "$t/list" ||
  { say "device list: h100-sxm row:"; grep h100-sxm "$t/list"; }
# one row per descriptor, under two headers (devices, then systems) with a blank line between
[ "$(($(wc -l <"$t/list") - 3))" = "$(ls devices/*.json | wc -l)" ] || say "device list: row count"
grep -q '^system  *name  *GPUs  *GPU  *NVLink  *network  *reduces  *file$' "$t/list" ||
  say "device list: no systems header"
grep -q '^hgx-h200-8  *NVIDIA HGX H200 8-GPU node  *1 x 8  *h200-sxm  *450 GB/s  *-  *switch ' "$t/list" ||
  { say "device list: hgx-h200-8 row:"; grep hgx-h200-8 "$t/list"; }
"$solar" device list --json >"$t/list.json" || say "device list --json: exit $?"
python3 - "$t/list.json" "$root/devices" <<'PY' || fail=1
import json, os, sys
rows = json.load(open(sys.argv[1]))
names = sorted(f[:-5] for f in os.listdir(sys.argv[2]) if f.endswith(".json"))
assert sorted(r["name"] for r in rows) == names, ([r["name"] for r in rows], names)
assert [r["kind"] for r in rows] == sorted(r["kind"] for r in rows), "devices, then systems"
s = next(r for r in rows if r["name"] == "hgx-h200-ib")
assert s["kind"] == "system" and s["gpus"] == 128 and s["network_bandwidth_bytes_per_s"] == 62.5e9, s
assert s["in_switch_reduction"] and s["in_network_reduction"] and s["gpu"] == "h200-sxm", s
h = next(r for r in rows if r["name"] == "h100-sxm")
assert h["dram_bandwidth_bytes_per_s"] == 3.35e12 and h["sm_count"] == 132, h
assert h["tensor_peak_precision"] == "f8" and h["l2_capacity_bytes"] == 52428800, h
PY
SOLAR_DEVICE_PATH="$t/d2" "$solar" device list | grep -q "^mygpu .*my H100 at 3 TB/s .*3 TB/s" ||
  say "device list does not show SOLAR_DEVICE_PATH's devices"
# --json is refused for show, and, asked for JSON, the refusal comes as JSON lines (docs/json.md)
check_err '{"severity":"error","message":"--format and --json apply to device list (show and probe write JSON)"}
{"severity":"note","message":"usage: solar device list [--format table|json] | solar device show NAME|FILE | solar device probe [--ceilings bound|measured]"}
{"severity":"note","message":"Try '"'solar device --help'"'."}' 2 device show h100-sxm --json
# device probe --ceilings measured: without a GPU a clear error (exit 2); with one, a
# descriptor of measured ceilings that --ceilings measured reads
"$solar" device probe --ceilings measured -o "$t/probe.json" >"$t/out" 2>"$t/err"; rc=$?
if [ "$rc" != 0 ]; then
  [ "$rc" = 2 ] || say "device probe --ceilings measured: exit $rc, expected 2 without a GPU"
  head -n 1 "$t/err" | grep -q '^solar: device probe: ' || { say "probe without a GPU:"; cat "$t/err"; }
  [ -e "$t/probe.json" ] && say "probe without a GPU wrote its output"
else
  grep -q '(measured ceilings)' "$t/probe.json" || say "probe --ceilings measured: no measured name"
  "$solar" analyze $A --device "$t/probe.json" --ceilings measured >"$t/out" 2>&1 ||
    { say "analyze --ceilings measured on the probe's descriptor failed:"; cat "$t/out"; }
fi
"$solar" device list --ceilings measured >/dev/null 2>"$t/err" && say "device list took --ceilings"

# a report manifest names its device too (a file beside the manifest still comes first)
printf '{"defaults": {"device": "h100-sxm"}, "entries": [{"air": "%s/%s", "measured": "1ms"}]}\n' \
  "$root" "$A" >"$t/manifest.json"
"$solar" report "$t/manifest.json" >"$t/report.md" 2>"$t/err" || { say "report by name: exit $?"; cat "$t/err"; }
grep -q "H100 SXM5" "$t/report.md" || say "report by name: no H100 in the report"
exit $fail
