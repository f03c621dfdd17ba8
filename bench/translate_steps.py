"""Where the time of one `solar translate` goes (docs/benchmarks.md, "Translation time"): the
translator's own cli.main run with a timer around each step (import torch, each translation,
the choice of validation sizes, each subprocess: solar check, solar validate), printed on
stderr.

    SOLAR_EXE=build/solar build/venv/bin/python bench/translate_steps.py TREE MODEL.py [ARGS...]

TREE is the source tree whose translate/ is timed (`.` for this one, or an unpacked `git
archive OLD translate validate` to compare with an older commit); ARGS are solar translate's.
"""
import functools
import os
import subprocess
import sys
import time


def timed(mod, name):
    f = getattr(mod, name)

    @functools.wraps(f)
    def g(*a, **k):
        t = time.time()
        try:
            return f(*a, **k)
        finally:
            print(f"  {name}: {time.time() - t:.2f} s", file=sys.stderr)
    setattr(mod, name, g)


def main():
    tree, argv = sys.argv[1], sys.argv[2:]
    sys.path.insert(0, os.path.join(os.path.abspath(tree), "translate"))
    t0 = time.time()
    import torch  # noqa: F401
    print(f"import torch: {time.time() - t0:.2f} s", file=sys.stderr)
    from solar_translate import cli, translate, validate
    timed(translate, "translate_file")
    timed(validate, "pick_sizes")
    run = subprocess.run

    def sub(cmd, *a, **k):
        t = time.time()
        try:
            return run(cmd, *a, **k)
        finally:
            print(f"  {os.path.basename(str(cmd[0]))} {cmd[1]}: {time.time() - t:.2f} s", file=sys.stderr)
    subprocess.run = sub
    t = time.time()
    rc = cli.main(argv)
    print(f"main: {time.time() - t:.2f} s, in all {time.time() - t0:.2f} s", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
