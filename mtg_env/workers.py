"""Worker processes that behave: they leave Ctrl-C to their parent and never outlive it.

A terminal sends Ctrl-C (SIGINT) to every process of the foreground group, so a worker that
took it would stop (or print a traceback) in the middle of its parent's orderly shutdown;
and a worker whose parent is killed (SIGKILL leaves no time to stop it) would run on,
playing games nobody collects. `worker_setup(parent)` fixes both; call it first thing in a
worker process (a pool initializer, an env factory run in a subprocess).
"""

from __future__ import annotations

import os
import signal
import threading
import time


def worker_setup(parent: int) -> None:
    """Ignore SIGINT (the parent stops the worker) and exit when `parent` ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


def die_with_parent(parent: int) -> None:
    """End this process when `parent` ends: at once on Linux (the kernel's parent-death
    signal), and elsewhere within a second (a thread that watches the parent's pid)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(0.5)

    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="die-with-parent").start()
