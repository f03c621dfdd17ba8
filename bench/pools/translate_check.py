"""Tries `solar translate --no-validate` on every reference and candidate of the pools and
prints one markdown row per file (bench/pools/README.md, "Translation").

    SOLAR_PYTHON=/work/venv/bin/python python3 bench/pools/translate_check.py [--solar build/solar]
                                                     [--work DIR] [--only P1,P2]

It runs `solar translate --batch-list LIST DIR` (the hidden batch mode of the test driver: each
file goes through the same main() as `solar translate FILE --no-validate -o DIR/NAME.air`, in
one process, so PyTorch is imported once), then reads each NAME.rc, NAME.out and NAME.err.
"""
import argparse
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solar", default=str(HERE.parent.parent / "build" / "solar"))
    ap.add_argument("--work", default="/tmp/solar-pools-translate")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    sys.path.insert(0, str(HERE))
    import pools
    only = [p for p in args.only.split(",") if p]
    folders = [HERE / p for p in only] or sorted(d for d in HERE.iterdir() if (d / "pool.json").is_file())
    work = pathlib.Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    cases = []
    for folder in folders:
        pool = pools.load_pool(folder)
        for entry in [{"file": pool["ref"], "kind": "ref"}] + pool["candidates"]:
            name = f"{folder.name}__{pathlib.Path(entry['file']).stem}"
            cases.append((name, folder, entry))
    listing = work / "list"
    listing.write_text("".join(f"{n} {f} {e['file']}\n" for n, f, e in cases))
    r = subprocess.run([args.solar, "translate", "--batch-list", str(listing), str(work / "out")])
    if r.returncode != 0:
        sys.exit(f"translate_check.py: solar translate --batch-list exited {r.returncode}")
    print("| problem | file | kind | translates | kernels / first error |")
    print("|---|---|---|---|---|")
    ok = 0
    for name, folder, entry in cases:
        base = work / "out" / name
        rc = (base.with_suffix(".rc")).read_text().strip() if base.with_suffix(".rc").exists() else "?"
        out = base.with_suffix(".out").read_text() if base.with_suffix(".out").exists() else ""
        err = base.with_suffix(".err").read_text() if base.with_suffix(".err").exists() else ""
        if rc.split()[0] == "0":
            ok += 1
            m = re.search(r"(\d+) kernels", out + err)
            what = f"{m.group(1)} kernels" if m else ""
        else:
            first = next((l for l in err.splitlines() if "error" in l), err.strip()[:200])
            what = re.sub(r"^\S*/", "", first.strip())[:160].replace("|", "\\|")
        print(f"| {folder.name} | {entry['file']} | {entry['kind']} | "
              f"{'yes' if rc.split()[0] == '0' else 'no'} | {what} |")
    print(f"\n{ok} of {len(cases)} files translate.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
