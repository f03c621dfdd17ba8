"""One line of bench/llm_table.sh: WARM.json COLD.json NAME DEVICE ANALYZE_SECONDS (solar
analyze --json of one case, L2 warm and cold)."""
import json
import sys

w, c = (json.load(open(p)) for p in sys.argv[1:3])


def row(r):
    f = r["fused"]
    return f"{f['time_s'] * 1e3:9.3f} ms {f['limited_by']:12s}"


print(f"{sys.argv[3]:26s} {sys.argv[4]:9s} fused {row(w)} cold {row(c)} unfused "
      f"{w['unfused']['time_s'] * 1e3:9.3f} ms DRAM {w['fused']['bytes']['dram'] / 1e9:7.2f} GB "
      f"ops {w['fused']['ops'] / 1e12:8.3f} T analyze {float(sys.argv[5]):.2f} s")
