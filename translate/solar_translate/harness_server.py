"""The validation's reference harness served from the translator's own process.

`solar validate` runs `harness.py run` in a new Python, which imports PyTorch again: 3 to 5 s
of a translation whose own work takes a second (docs/benchmarks.md, "Translation time").  The
harness can serve its `run` requests from a process that has imported PyTorch already
(`harness.py serve`, SOLAR_HARNESS_SERVER; the test suite's server, docs/translate.md "Time").
The translator is such a process: `start` forks it, right after PyTorch is imported and before
anything is traced, into a server of the same harness.py that `solar validate` runs; `solar
validate` then gets SOLAR_HARNESS_SERVER in its environment (`env`), and `stop` ends the
server.  A client that cannot reach the server runs the request itself, so a server that is not
there (no fork, no harness found, one already given by the caller) costs time, not results.
"""
import importlib.util
import os
import signal
import sys
import tempfile
import time

IDLE_S = 3600.0     # the server ends by stop(), or with the translator (PR_SET_PDEATHSIG)


def harness_path(solar):
    """The harness.py that `solar validate` runs (cli/cmd_validate.c's find_harness: then
    $SOLAR_HARNESS, beside the executable), or None."""
    if os.environ.get("SOLAR_HARNESS"):
        return os.environ["SOLAR_HARNESS"]
    here = os.path.dirname(os.path.realpath(solar)) if solar else None
    tree = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for p in ([os.path.join(here, r) for r in ("../validate/harness.py", "validate/harness.py",
                                               "../share/solar/validate/harness.py")] if here else []) \
            + [os.path.join(tree, "validate", "harness.py")]:
        if os.path.isfile(p):
            return os.path.normpath(p)
    return None


def die_with_parent():
    """The server gets SIGTERM when the translator ends, however it ends (Linux; elsewhere the
    idle limit ends it)."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)    # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start(solar, frameworks=("torch",)):
    """(socket path, pid) of a harness server forked from this process, or None (a server is
    already given in the environment, no harness.py, no fork).  frameworks: what the server
    imports (harness.serve): this process's own, imported already."""
    if os.environ.get("SOLAR_HARNESS_SERVER") or not hasattr(os, "fork"):
        return None
    path = harness_path(solar)
    if not path:
        return None
    try:
        spec = importlib.util.spec_from_file_location("_solar_harness_server", path)
        harness = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(harness)
    except Exception:  # noqa: BLE001 - an unreadable harness: solar validate will say so
        return None
    folder = tempfile.mkdtemp(prefix="solar-harness-")
    sock = os.path.join(folder, "sock")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        rc = 2
        try:
            die_with_parent()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):   # the requests bring their own streams
                os.dup2(null, fd)
            rc = harness.serve(sock, IDLE_S, frameworks)
        except BaseException:  # noqa: BLE001 - the child never returns into the translator
            pass
        finally:
            os._exit(rc if isinstance(rc, int) else 0)
    return sock, pid


def env(server):
    return {"SOLAR_HARNESS_SERVER": server[0]} if server else {}


def stop(server):
    if not server:
        return
    sock, pid = server
    # SIGTERM, then SIGKILL if the child has not ended within 2 s: a child forked from a
    # process with threads can stop on a lock another thread held at the fork, where its
    # Python SIGTERM handler never runs (translate_jax/bad/no_fn waited for the 120 s limit
    # under a loaded machine)
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(200):
            if os.waitpid(pid, os.WNOHANG)[0]:
                break
            time.sleep(0.01)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
    try:
        os.rmdir(os.path.dirname(sock))
    except OSError:
        pass
