"""Pool workers exit when the process that started them dies.

A ``ProcessPoolExecutor`` worker waits on its call queue; if the sweep's
process is SIGKILLed it never learns, and would sit there forever holding
its memory. Each worker therefore, at start-up, asks Linux to send it
SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``) and, on every
platform, runs a daemon thread that polls its parent pid and exits when it
changes (the worker is re-parented). Simulations run with the GIL released,
so the thread gets to run even while a worker is busy.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
POLL_S = 0.5


def _pdeathsig() -> None:
    """Linux only: SIGKILL this process when its parent thread exits."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # no libc/prctl: the watchdog thread remains
        pass


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(POLL_S)


def tie_to_parent(parent: int) -> None:
    """Pool initializer: exit when process ``parent`` (the sweep) is gone."""
    _pdeathsig()
    if os.getppid() != parent:  # it died before prctl took effect
        os._exit(1)
    threading.Thread(target=_watch, args=(parent,), name="flashsched-lifeline", daemon=True).start()
