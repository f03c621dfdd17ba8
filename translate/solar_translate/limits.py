"""How the translator ends: signals and time limits (docs/translate.md "Interrupts and limits").

`solar translate` (cli/cmd_translate.c) runs this process in a process group of its own and
stops the group (SIGTERM, then SIGKILL) on SIGINT, SIGTERM, SIGHUP, past SOLAR_TIME_LIMIT and
past --timeout.  Here the two halves of that on the Python side:

- `quiet_signals()`: SIGINT, SIGTERM and SIGHUP raise `Interrupted`, which unwinds through every
  `finally` (the work folders go, a half-written output is removed) and is not an `Exception`,
  so no `except Exception` of the translator turns it into an error line; the entry point
  (run.py) then ends by the same signal, quietly: no traceback, exit 128 + the signal.
- `own_limits()`: around a span that runs under limits of its own (the validation's `solar
  validate`, each step under --timeout; an LLM call), the parent is told to pause
  SOLAR_TIME_LIMIT and its --timeout, through the control pipe it passed as SOLAR_LIMIT_FD:
  "p" pauses, "r" resumes; `new_step()` says "n", both limits afresh (each case of --batch-list).
  Run by hand (no SOLAR_LIMIT_FD), nothing happens.
- `run()`: subprocess.run for a child that is solar (`solar validate`): interrupted, it gets
  SIGTERM and a few seconds to stop its own children and remove its folder, where
  subprocess.run would SIGKILL it at once.
"""
import contextlib
import os
import signal
import subprocess

_CONTROL_FD = None


class Interrupted(BaseException):
    """A signal that ends the run (SIGINT, SIGTERM, SIGHUP)."""

    def __init__(self, sig):
        super().__init__(sig)
        self.sig = sig


def _raise(sig, frame):
    raise Interrupted(sig)


def quiet_signals():
    """Installs the handlers, and takes the control pipe out of the environment (a child must
    not write to a descriptor of that number: it is not the pipe there)."""
    global _CONTROL_FD
    fd = os.environ.pop("SOLAR_LIMIT_FD", None)
    if fd and fd.isdigit():
        _CONTROL_FD = int(fd)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:   # nohup's stays
            signal.signal(sig, _raise)


def end_by(sig):
    """Ends the process by the signal sig, as if it had not been caught (exit 128 + sig)."""
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    os._exit(128 + sig)   # not reached


def _tell(what):
    if _CONTROL_FD is None:
        return
    try:
        os.write(_CONTROL_FD, what)
    except OSError:
        pass


def new_step():
    """Both limits afresh, from now: the next case of `--batch-list` has a single translation's."""
    _tell(b"n")


@contextlib.contextmanager
def own_limits():
    """The span of a step with its own limit: SOLAR_TIME_LIMIT and --timeout paused."""
    _tell(b"p")
    try:
        yield
    finally:
        _tell(b"r")


def run(cmd, env=None, grace_s=5.0):
    """subprocess.run(cmd, capture_output=True, text=True, env=env), but an interrupt gives the
    child SIGTERM and grace_s seconds before SIGKILL."""
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env) as p:
        try:
            out, err = p.communicate()
        except BaseException:
            p.terminate()
            try:
                p.wait(timeout=grace_s)
            except BaseException:  # noqa: BLE001 - a second interrupt, or the grace is over
                p.kill()
            raise
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)
