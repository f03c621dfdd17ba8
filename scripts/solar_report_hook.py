#!/usr/bin/env python3
"""solar-report pre-commit hook: `solar report`, summarised for a terminal.

pre-commit shows a hook's output in the terminal, where the report's Markdown (tables,
<details>) is noise.  This runs `solar report ARGS` (the solar on the PATH, or $SOLAR) with the
Markdown and JSON written to files -- those the arguments name with --md / --json, else
temporary ones -- and prints one line per model from the JSON: its headroom, what limits it,
and the gate's verdict.  The exit status is solar's: 0 pass, 1 a gate failed, 2 usage or input
errors (whose messages solar has already printed).  docs/report.md, "pre-commit".
"""
import json
import os
import subprocess
import sys
import tempfile


def option_value(args, name):
    for i, a in enumerate(args):
        if a == name and i + 1 < len(args):
            return args[i + 1]
    return None


def fmt_factor(x):
    return "-" if x is None else f"{x:.3g}x"


def main(argv):
    solar = os.environ.get("SOLAR") or "solar"
    args = list(argv) or ["solar-manifest.json"]
    with tempfile.TemporaryDirectory(prefix="solar-hook-") as tmp:
        json_path = option_value(args, "--json")
        md_path = option_value(args, "--md")
        extra = []
        if not json_path:
            json_path = os.path.join(tmp, "report.json")
            extra += ["--json", json_path]
        if not md_path:
            extra += ["--md", os.path.join(tmp, "report.md")]
        try:
            rc = subprocess.call([solar, "report"] + args + extra)
        except OSError as e:
            print(f"solar-report: cannot run '{solar}': {e.strerror} (put solar on the PATH "
                  "or set SOLAR)", file=sys.stderr)
            return 2
        try:
            with open(json_path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError):
            return rc if rc else 2  # solar explained the error on stderr
        entries = report.get("entries", [])
        failed = [e for e in entries if e.get("status") != "pass"]
        bound = str(report.get("bound", "cache_aware")).replace("_", "-")
        limits = [f"bound {bound}"]
        if report.get("max_headroom") is not None:
            limits.append(f"max headroom {report['max_headroom']:g}x")
        if report.get("max_regression") is not None:
            limits.append(f"max regression {100 * report['max_regression']:g}%")
        verdict = "PASS" if rc == 0 else "FAIL"
        print(f"solar report: {verdict}: {len(failed)} of {len(entries)} models over the limits "
              f"({', '.join(limits)})")
        width = max([len(str(e.get("name", ""))) for e in entries] + [5])
        for e in entries:
            status = "ok" if e.get("status") == "pass" else "FAIL " + (e.get("reasons") or "")
            print(f"  {str(e.get('name', '')):<{width}}  headroom {fmt_factor(e.get('headroom')):>8}"
                  f"  limited by {e.get('limited_by') or '-':<12}  {status}".rstrip())
        removed = report.get("removed") or []
        if removed:
            print(f"  {len(removed)} model(s) of the baseline are gone: "
                  + ", ".join(str(r.get("name", r)) if isinstance(r, dict) else str(r)
                              for r in removed))
        if md_path:
            print(f"Markdown report: {md_path}")
        return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
