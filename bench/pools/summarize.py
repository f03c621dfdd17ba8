"""Summarises a pools JSONL written by bench/pools/measure.py: per problem, the reference, every
candidate sorted by time with its speedup over the reference and over its parent, and the
steps along pool.json's parent links that paid (the evidence advise's trajectories are built on).

    python3 bench/pools/summarize.py RESULTS.jsonl [--l2 cold|warm] [--md]
"""
import argparse
import json
import pathlib
import sys
from collections import defaultdict


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("jsonl")
    ap.add_argument("--l2", default="cold")
    ap.add_argument("--md", action="store_true", help="markdown tables")
    args = ap.parse_args()
    by = defaultdict(dict)
    for n, line in enumerate(open(args.jsonl), 1):
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            sys.exit(f"{args.jsonl}:{n}: error: {e.msg}")
        if d.get("l2", "cold") == args.l2 or d.get("error"):
            by[d["problem"]][pathlib.Path(d["candidate"]).name] = d   # a later line wins
    sep = " | " if args.md else "  "
    for problem in sorted(by):
        rows = by[problem]
        ref = rows.get("ref.py")
        t_ref = ref["ms"] if ref and ref.get("ms") else None
        print(f"\n{'### ' if args.md else '== '}{problem}: reference "
              f"{f'{t_ref:.4f} ms' if t_ref else 'not measured'}")
        if args.md:
            print("| candidate | kind | ms | vs ref | vs parent | correct | step |\n|---|---|---|---|---|---|---|")
        timed = sorted((r for r in rows.values() if r.get("ms")), key=lambda r: r["ms"])
        for r in timed + [r for r in rows.values() if not r.get("ms")]:
            name = pathlib.Path(r["candidate"]).name
            if not r.get("ms"):
                cells = [name, r.get("kind", ""), "-", "-", "-", "error", r.get("error", "")[:80]]
            else:
                par = rows.get(r.get("parent") or "", {}) if r.get("parent") != "ref" else ref
                vs_par = (f"{par['ms'] / r['ms']:.2f}x" if par and par.get("ms") and name != "ref.py"
                          else "-")
                cells = [name, r.get("kind", ""), f"{r['ms']:.4f}",
                         f"{t_ref / r['ms']:.2f}x" if t_ref else "-", vs_par,
                         "yes" if r.get("correct") else "NO",
                         f"{r.get('direction') or ''}: {r.get('strategy') or ''}" if r.get("direction") else ""]
            print(("| " + sep.join(cells) + " |") if args.md else sep.join(f"{c:<14}" if i else f"{c:<30}" for i, c in enumerate(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
