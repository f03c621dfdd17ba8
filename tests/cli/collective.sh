#!/bin/sh
# solar collective (cli/cmd_collective.c; docs/bounds.md "Collectives", docs/devices.md
# "Systems"): the table of a 1 GB all-reduce on an H200 node, its JSON, a cluster, --set on a
# system and its GPU, and every kind of bad input as a located error with its exit status.
solar=$1 root=$2
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
cd "$root" || exit 2
fail=0
say() { echo "$*"; fail=1; }
unset SOLAR_DEVICE_PATH

"$solar" collective all_reduce 1GB --device hgx-h200-8 >"$t/out" 2>"$t/err" || say "all_reduce: exit $?"
[ -s "$t/err" ] && { say "all_reduce wrote to stderr:"; cat "$t/err"; }
diff -u - "$t/out" <<'W' || say "all_reduce 1GB on hgx-h200-8: the table differs"
all_reduce of 1 GB per rank over 8 ranks of hgx-h200-8 (NVIDIA HGX H200 8-GPU node)
  placement: 1 node of 8 ranks; reduction in the NVSwitch: yes

  resource      bytes       bandwidth    time       rule (docs/bounds.md, "Collectives")
  rank links    1 GB        450 GB/s     2.22 ms    each rank sends and receives S (a switch reduces)  <- limit
  DRAM          2 GB        4.8 TB/s     417 us     each rank reads S and writes S
  latency: not counted (the descriptor gives no latency_s)

Bound: 2.22 ms  (algorithm bandwidth <= 450 GB/s, bus bandwidth <= 788 GB/s)
Measured ceiling (an estimate, not a bound): 475 GB/s bus bandwidth -> 3.68 ms
W

# JSON: the terms, the limit, and bandwidths to set against nccl-tests
"$solar" collective all_gather 256MiB --device hgx-h200-ib --ranks 64 --json >"$t/j" || say "json: exit $?"
python3 - "$t/j" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["schema"] == "solar.collective/1", j.get("schema")
assert j["op"] == "all_gather" and j["bytes"] == 268435456 and j["ranks"] == 64, j
assert j["placement"] == {"nodes": 8, "ranks_per_node": 8}, j["placement"]
assert [t["resource"] for t in j["terms"]] == ["rank links", "node network", "DRAM"], j["terms"]
assert j["limit"] == "rank links" and j["time_s"] == max(t["time_s"] for t in j["terms"]), j
rank = j["terms"][0]
assert rank["bytes"] == 268435456 * 63 / 64 and rank["bandwidth_bytes_per_s"] == 512.5e9, rank
PY

# what if: a faster NVLink on the rack, a slower GPU memory
"$solar" collective all_reduce 1GB --device gb200-nvl72 --set nvlink.bandwidth_bytes_per_s=1.8TB/s \
  --set gpu.memory.dram.bandwidth_bytes_per_s=2TB/s >"$t/out" 2>&1 || say "--set: exit $?"
grep -q '^  DRAM          2 GB        2 TB/s       1 ms .*<- limit$' "$t/out" ||
  { say "--set: DRAM at 2 TB/s should limit:"; cat "$t/out"; }
"$solar" collective broadcast 1MB --device hgx-h100-8 --set latency_s=3us | grep -q '^  latency  .*3 us$' ||
  say "--set latency_s: no latency line"

# --target-time: what each limiting figure must become; applied together, they meet it
"$solar" collective all_reduce 8GB --device hgx-h200-ib --ranks 128 --target-time 10ms >"$t/out" 2>&1 || say "target: exit $?"
tail -n 3 "$t/out" >"$t/tail"
diff -u - "$t/tail" <<'W' || say "--target-time 10ms: the needs differ"
Target 10 ms: met with these figures (each computed with the others as they are; together they suffice):
  nvlink.bandwidth_bytes_per_s             450 GB/s -> 738 GB/s (1.64x)
  network.bandwidth_bytes_per_s            62.5 GB/s -> 100 GB/s (1.6x)
W
"$solar" collective all_reduce 8GB --device hgx-h200-ib --ranks 128 --json --target-time 10ms \
  --set nvlink.bandwidth_bytes_per_s=737.5GB/s --set network.bandwidth_bytes_per_s=100GB/s >"$t/j" ||
  say "target applied: exit $?"
python3 - "$t/j" <<'PY' || fail=1
import json, sys
j = json.load(open(sys.argv[1]))
assert j["target"]["met"] and j["target"]["needs"] == [] and j["time_s"] <= 0.01 * (1 + 1e-12), j
PY
"$solar" collective all_reduce 1GB --device hgx-h200-8 --target-time 3ms | tail -n 1 |
  grep -qx 'Target 3 ms: met (the bound 2.22 ms leaves 778 us)' || say "--target-time 3ms: not met?"
"$solar" collective all_reduce 1GB --device hgx-h200-8 --set latency_s=5ms --target-time 3ms | tail -n 1 |
  grep -qx 'Target 3 ms: no bandwidth meets it: the latency alone is 5 ms' || say "latency above the target"

check_err() { # want-stderr exit args...
  want=$1 code=$2; shift 2
  "$solar" "$@" >"$t/out" 2>"$t/err"; rc=$?
  [ "$rc" = "$code" ] || say "solar $*: exit $rc, expected $code"
  head -n 1 "$t/err" | grep -qF -- "$want" || { say "solar $*: stderr:"; cat "$t/err"; }
  [ -s "$t/out" ] && say "solar $*: wrote to stdout"
  grep -q Traceback "$t/err" && say "solar $*: traceback"
}
check_err "solar: collective needs OP and SIZE" 2 collective all_reduce
check_err "solar: collective: unknown OP 'allreduce'" 2 collective allreduce 1GB --device hgx-h200-8
check_err "solar: collective: SIZE '1GB/s' is not a size in bytes" 2 collective all_reduce 1GB/s --device hgx-h200-8
check_err "solar: collective: SIZE '0' is not a size in bytes" 2 collective all_reduce 0 --device hgx-h200-8
check_err "solar: collective needs --device SYSTEM" 2 collective all_reduce 1GB
check_err "solar: collective: 12 ranks span nodes of 8 GPUs without filling them" 2 \
  collective all_reduce 1GB --device hgx-h200-ib --ranks 12
check_err "solar: collective: 9 ranks, but NVIDIA HGX H200 8-GPU node has 8 GPUs (1 node of 8)" 2 \
  collective all_reduce 1GB --device hgx-h200-8 --ranks 9
check_err "solar: collective: send is between two ranks (--ranks 2), not 8" 2 \
  collective send 1GB --device hgx-h200-8 --ranks 8
check_err "devices/h200-sxm.json: a device descriptor, not a system's" 1 \
  collective all_reduce 1GB --device h200-sxm
check_err "solar: no device 'hgx-h300-8'; try 'solar device list' (did you mean 'hgx-h" 2 \
  collective all_reduce 1GB --device hgx-h300-8
check_err "solar: --set nvlink.bandwidth_bytes_per_s: '4GHz' is not a bandwidth such as 900GB/s" 2 \
  collective all_reduce 1GB --device hgx-h200-8 --set nvlink.bandwidth_bytes_per_s=4GHz
check_err "solar: system override 'nodes': NVIDIA HGX H200 8-GPU node has no network to join nodes" 2 \
  collective all_reduce 1GB --device hgx-h200-8 --set nodes=2
check_err "solar: system override 'speed': unknown path" 2 \
  collective all_reduce 1GB --device hgx-h200-8 --set speed=2
check_err "solar: --ranks expects an integer from 1 to 10000000, not '0'" 2 \
  collective all_reduce 1GB --device hgx-h200-8 --ranks 0
# a system where one GPU is needed
check_err "hgx-h200-8.json: a system descriptor (many GPUs), where one GPU's descriptor is needed" 2 \
  triage examples/softmax.air --device hgx-h200-8
# analyze takes a system (docs/bounds.md, "Programs on many GPUs"): a program without a mesh is
# one rank on its GPU, with the GPU's bounds
"$solar" analyze examples/softmax.air --device hgx-h200-8 >"$t/sys.out" ||
  say "analyze on a system: exit $?"
grep -q "on NVIDIA HGX H200 8-GPU node, 1 rank of NVIDIA H200 SXM" "$t/sys.out" ||
  say "analyze on a system: no heading naming the system: $(head -1 "$t/sys.out")"
"$solar" analyze examples/softmax.air --device h200-sxm | sed 1d >"$t/gpu.out"
sed 1d "$t/sys.out" | cmp -s - "$t/gpu.out" ||
  say "analyze on a system: one rank's bounds differ from the GPU's"
# provision of a program on many GPUs (docs/provision.md, "Systems"): the NVLink bandwidth it
# asks for, set with --set on the system, gives a bound at the target; 1% less misses it
"$solar" provision examples/many-gpus/mlp_dp.air --device hgx-h200-8 --target-time 500us \
  --json >"$t/prov.json" || say "provision on a system: exit $?"
need=$(python3 - "$t/prov.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["system"]["ranks"] == 8, j.get("system")
b = j["bounds"]["cache_aware"]
assert b["limited_by"] == "links" and b["binding"] == "nvlink_bw", b
r = [x for x in b["resources"] if x["name"] == "nvlink_bw"][0]
assert r["figures"] == ["nvlink.bandwidth_bytes_per_s"] and r["now"] == 450e9, r
print(repr(r["needed"]))
PY
) || fail=1
for f in 1 0.99; do
  bw=$(python3 -c "print(repr($need * $f))")
  "$solar" analyze examples/many-gpus/mlp_dp.air --device hgx-h200-8 --json \
    --set nvlink.bandwidth_bytes_per_s="$bw" >"$t/at.json" || say "analyze --set nvlink: exit $?"
  python3 -c "
import json, sys
t = json.load(open('$t/at.json'))['cache_aware']['time_s']
assert (t <= 500e-6) == ($f == 1), ('$f', t)" || say "provision's NVLink need does not meet 500 us exactly ($f x)"
done
# sweep of it over NVLink bandwidth: at 1x the fused bound is analyze's, links-limited, and
# twice the bandwidth halves it; nvlink_bw on one GPU is an error
"$solar" sweep examples/many-gpus/mlp_dp.air --device hgx-h200-8 --vary nvlink_bw=1x..2x \
  --steps 2 >"$t/sweep.csv" || say "sweep on a system: exit $?"
"$solar" analyze examples/many-gpus/mlp_dp.air --device hgx-h200-8 --json >"$t/an.json"
python3 - "$t/sweep.csv" "$t/an.json" <<'PY' || fail=1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fused = json.load(open(sys.argv[2]))["fused"]["time_s"]
assert [float(r["nvlink_bw_factor"]) for r in rows] == [1, 2], rows
assert abs(float(rows[0]["fused_s"]) - fused) <= 1e-5 * fused, (rows[0], fused)  # 6 digits
assert rows[0]["fused_limited_by"] == "links" and rows[1]["fused_limited_by"] == "links", rows
assert abs(float(rows[1]["fused_s"]) * 2 - fused) <= 1e-5 * fused, rows
PY
check_err "'nvlink_bw' is a figure of a system of many GPUs" 2 \
  sweep examples/softmax.air --device h200-sxm --vary nvlink_bw=1x..2x
check_err "--set nvlink.bandwidth_bytes_per_s: '1TB' is not a bandwidth such as 900GB/s" 2 \
  analyze examples/many-gpus/mlp_dp.air --device hgx-h200-8 --set nvlink.bandwidth_bytes_per_s=1TB
# a bad system file: errors at JSON paths
printf '{"schema": 1, "system": "t", "gpu": "h200-sxm", "gpus_per_node": 8,\n "nvlink": {"bandwidth_bytes_per_s": 4e11}}\n' >"$t/bad.json"
check_err "$t/bad.json: nvlink.bandwidth_bytes_per_s: expected an object" 1 \
  collective all_reduce 1GB --device "$t/bad.json"
printf '{"schema": 1, "system": "t",\n  "gpu": "h200-sxm" "nodes": 2}\n' >"$t/syntax.json"
check_err "$t/syntax.json:2:21: error: invalid JSON" 1 collective all_reduce 1GB --device "$t/syntax.json"
exit $fail
