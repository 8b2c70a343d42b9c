"""Small helpers shared by the harness modules."""
import fcntl
import os
import sys
import time


class BenchError(Exception):
    """An error the harness reports as one clear line and exit status 1."""


def log(message):
    print("[bench] " + message, file=sys.stderr, flush=True)


class Lock:
    """An exclusive flock on PATH (the machine's build/benchmark lock), so
    that no build runs while we time. Reentrant within this process."""

    def __init__(self, path):
        self.path = path
        self.fd = None
        self.depth = 0

    def __enter__(self):
        if self.path is None:
            return self
        if self.depth == 0:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                log("waiting for %s (a build or benchmark holds it; if you "
                    "wrapped this command in flock yourself, pass --no-lock)"
                    % self.path)
                start = time.time()
                fcntl.flock(self.fd, fcntl.LOCK_EX)
                log("got %s after %.0f s" % (self.path, time.time() - start))
        self.depth += 1
        return self

    def __exit__(self, *exc):
        if self.path is None:
            return False
        self.depth -= 1
        if self.depth == 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None
        return False


def newer(target, *sources):
    """True when TARGET exists and is at least as new as every source."""
    if not os.path.exists(target):
        return False
    t = os.path.getmtime(target)
    return all(os.path.getmtime(s) <= t for s in sources if os.path.exists(s))
