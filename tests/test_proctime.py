"""Whole-process cost of a child (``flashsched.proctime``): exit status, CPU
time, its own peak memory (not the parent's), and a timeout that kills the
command itself."""

from __future__ import annotations

import sys

import pytest
from flashsched import proctime


def test_exit_status_and_cpu_time_are_the_childs() -> None:
    c = proctime.timed([sys.executable, "-c", "import sys; sum(range(3_000_000)); sys.exit(3)"])
    assert c.returncode == 3 and not c.timed_out
    # The loop runs on the CPU: its time is counted, and not more than the wall.
    assert 0 < c.cpu_s <= c.wall_s * 1.05 + 0.05


def test_peak_memory_is_the_childs_own() -> None:
    if proctime._gnu_time() is None:
        pytest.skip("GNU time not installed: peak RSS is an upper bound here")
    hold = bytearray(300 << 20)  # a large parent must not show in the child
    hold[::4096] = b"x" * len(hold[::4096])
    small = proctime.timed([sys.executable, "-c", "pass"])
    big = proctime.timed(
        [sys.executable, "-c", "b = bytearray(200 << 20); b[::4096] = b'x' * len(b[::4096])"]
    )
    assert small.rss_exact and big.rss_exact
    assert small.peak_rss_mib < 100
    assert 200 <= big.peak_rss_mib < 300
    del hold


def test_timeout_kills_the_command_not_only_its_wrapper() -> None:
    c = proctime.timed([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.5)
    assert c.timed_out and c.returncode != 0 and c.wall_s < 30


def test_input_reaches_the_child(tmp_path) -> None:
    out = tmp_path / "out.txt"
    with out.open("w") as f:
        c = proctime.timed(
            [sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"],
            stdin=b"trace.txt\n",
            stdout=f,
        )
    assert c.returncode == 0 and out.read_text().strip() == "TRACE.TXT"
