"""A sweep's pool workers die with it: SIGKILL the sweeping process and its
workers are gone within seconds (sweep/lifeline.py) instead of waiting on
their call queue forever."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")

SWEEP = """
import flashsched
spec = {
    "name": "orphans",
    "base": {"device": "ssdsim-default"},
    "workloads": {"w": {"synthetic": "read=0.5,bs=4k,iops=200000,n=50000000"}},
    "grid": {"seed": [1, 2, 3, 4]},
    "output": {"cdf": False, "timeseries": False},
}
flashsched.sweep(spec, out=OUT, workers=2, progress=False, backend=BACKEND)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _descendants(pid: int) -> list[int]:
    """Every live process below ``pid``."""
    out, todo = [], [pid]
    while todo:
        kids = _children(todo.pop())
        out += kids
        todo += kids
    return [p for p in out if _alive(p)]


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == pid:
                out.append(int(d.name))
    return out


def _ray() -> bool:
    import importlib.util

    return importlib.util.find_spec("ray") is not None


@pytest.mark.parametrize(
    ("backend", "wait_s"),
    [
        ("local", 5),
        pytest.param("ray", 60, marks=pytest.mark.skipif(not _ray(), reason="ray not installed")),
    ],
)
def test_workers_exit_when_the_sweep_is_killed(tmp_path: Path, backend: str, wait_s: float) -> None:
    """Local: the pool workers (lifeline). Ray: the local instance the sweep
    started (GCS, raylet) and the workers running its tasks (Ray's own
    reaper). Ray's dashboard and runtime-env agents are not waited for:
    they notice their raylet is gone after about a minute."""
    code = f"OUT = {str(tmp_path / 'out')!r}\nBACKEND = {backend!r}\n" + SWEEP
    parent = subprocess.Popen([sys.executable, "-c", code])
    workers: list[int] = []
    try:
        deadline = time.time() + 120
        busy = 0
        while time.time() < deadline and busy < 2:
            time.sleep(0.5)
            workers = _descendants(parent.pid)
            busy = sum(1 for p in workers if _cpu_s(p) > 0.5 and _is_worker(p, backend))
        assert busy >= 2, f"the sweep never had two busy workers: {workers}"
        assert parent.poll() is None
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.time() + wait_s
        while time.time() < deadline and any(_alive(p) for p in workers):
            time.sleep(0.2)
        left = [p for p in workers if _alive(p) and not _is_ray_agent(p)]
        assert left == [], f"processes still running: {[_cmd(p) for p in left]}"
    finally:
        if parent.poll() is None:
            parent.kill()
        for p in workers:  # whatever a failure left
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80]
    except OSError:
        return "?"


def _is_ray_agent(pid: int) -> bool:
    return any(a in _cmd(pid) for a in ("DashboardAgent", "RuntimeEnvAgent"))


def _is_worker(pid: int, backend: str) -> bool:
    return backend == "local" or "ray::" in _cmd(pid) or "default_worker" in _cmd(pid)


def _cpu_s(pid: int) -> float:
    try:
        f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
