"""Whole-process cost of a command: wall time, CPU time (user + system) and
peak resident memory of that one child, as ``/usr/bin/time`` reports them.

CPU time comes from the child's own ``rusage`` (``os.wait4``), so it is
neither another child's nor inflated by waiting for a busy machine's CPU
the way wall time is; both are reported (BENCHMARKS.md).

Peak memory: Linux counts the spawning process's resident set in a child's
``ru_maxrss`` (the image it replaced at ``exec``), so a large parent would
show as every child's peak. The command is therefore started through GNU
``/usr/bin/time`` (a few MiB) where it exists and its figure is taken;
otherwise the ``wait4`` figure is kept and marked as an upper bound.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO


@dataclass(frozen=True)
class ProcessCost:
    """What one finished child process cost."""

    returncode: int
    wall_s: float
    cpu_s: float
    peak_rss_mib: float
    timed_out: bool = False
    #: False when peak_rss_mib may include this process's own memory
    rss_exact: bool = True


def timed(
    cmd: Sequence[str],
    *,
    cwd: Path | str | None = None,
    stdin: bytes | None = None,
    stdout: IO[str] | IO[bytes] | int | None = subprocess.DEVNULL,
    timeout: float | None = None,
) -> ProcessCost:
    """Run ``cmd`` to completion; its cost. ``stdin`` is written to the child
    and closed (``None``: no input). A child still running after ``timeout``
    seconds is killed and reported with ``timed_out``."""
    gnu_time = _gnu_time()
    rss_file = None
    argv = list(cmd)
    if gnu_time:
        fd, rss_file = tempfile.mkstemp(prefix="flashsched-rss-")
        os.close(fd)
        argv = [gnu_time, "-q", "-o", rss_file, "-f", "%M", *argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=stdout,
        stderr=subprocess.STDOUT if stdout not in (None, subprocess.DEVNULL) else None,
        # Its own process group, so a timeout kills the command, not only
        # GNU time in front of it.
        start_new_session=True,
    )
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    timer = threading.Timer(timeout, kill) if timeout else None
    if timer:
        timer.start()
    try:
        if stdin is not None and proc.stdin is not None:
            try:
                proc.stdin.write(stdin)
                proc.stdin.close()
            except BrokenPipeError:
                pass  # the child exited without reading: its status says why
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        if timer:
            timer.cancel()
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports ru_maxrss (and GNU time's %M) in KiB.
    rss_kib, exact = float(usage.ru_maxrss), False
    if rss_file is not None:
        text = Path(rss_file).read_text().strip().splitlines()
        os.unlink(rss_file)
        if text and text[-1].isdigit():
            rss_kib, exact = float(text[-1]), True
    return ProcessCost(
        returncode=proc.returncode,
        wall_s=wall,
        cpu_s=usage.ru_utime + usage.ru_stime,
        peak_rss_mib=rss_kib / 1024,
        timed_out=killed.is_set(),
        rss_exact=exact,
    )


@functools.cache
def _gnu_time() -> str | None:
    """GNU time's path if it is installed (its ``-f``/``-o``/``-q`` options)."""
    path = shutil.which("time", path="/usr/bin:/bin:/usr/local/bin")
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return path if "GNU" in (out.stdout + out.stderr) else None
