"""Entry point of `solar translate` (cli/cmd_translate.c runs this file)."""
import os
import signal
import sys

signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `solar translate ... | head` ends quietly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from solar_translate.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
