"""Entry point of `solar translate` (cli/cmd_translate.c runs this file)."""
import os
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `solar translate ... | head` ends quietly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from solar_translate import limits  # noqa: E402

limits.quiet_signals()   # before the imports of torch: a signal then ends the run quietly too


def run():
    try:
        from solar_translate.cli import main
        rc = main(sys.argv[1:])
        sys.stdout.flush()
        return rc
    except limits.Interrupted as e:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, limits.Interrupted):
            pass
        limits.end_by(e.sig)


if __name__ == "__main__":
    sys.exit(run())
