"""Bad trace input from Python and the CLI (docs/reliability.md): skip_bad /
--skip-bad, the time-order policy, input accounting in the summary, and
``scan_trace``."""

from __future__ import annotations

import json
from pathlib import Path

import flashsched
import pytest
from flashsched import _core

DEVICE = "ssdsim-default"
# Heimdall lines (ms, dev, offset B, size B, 1 = read) with two bad lines
# (2: too few fields, 4: a non-numeric offset) and one step back in time (5).
MIXED = "0.0 0 0 4096 1\ngarbage here\n0.1 0 4096 4096 0\n0.2 0 x 4096 1\n0.05 0 8192 4096 1\n"


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    p = tmp_path / "mixed.trace"
    p.write_text(MIXED)
    return p


def test_bad_line_is_an_error_naming_file_and_line(mixed):
    with pytest.raises(flashsched.TraceError, match=rf"{mixed.name}:2: expected 5"):
        flashsched.run(trace=mixed, format="heimdall", device=DEVICE)


def test_skip_bad_counts_lines_in_the_summary(mixed):
    res = flashsched.run(trace=mixed, format="heimdall", device=DEVICE, skip_bad=True)
    inp = res.summary["input"]
    assert res.summary["requests"] == 3
    assert (inp["lines"], inp["records"], inp["bad_lines"], inp["clamped"]) == (5, 3, 2, 1)
    assert inp["first_bad"].startswith(f"{mixed}:2: ")


def test_time_order_reject(mixed):
    res = flashsched.run(
        trace=mixed, format="heimdall", device=DEVICE, skip_bad=True, time_order="reject"
    )
    assert (res.summary["input"]["bad_lines"], res.summary["requests"]) == (3, 2)
    good = mixed.read_text().splitlines()
    mixed.write_text("\n".join(good[i] for i in (0, 2, 4)) + "\n")
    with pytest.raises(flashsched.TraceError, match=rf"{mixed.name}:3: time .* earlier"):
        flashsched.run(trace=mixed, format="heimdall", device=DEVICE, time_order="reject")
    with pytest.raises(flashsched.ConfigError, match="fifo"):
        flashsched.run(trace=mixed, format="heimdall", device=DEVICE, time_order="fifo")


def test_synthetic_runs_have_no_input_section(small_result):
    assert small_result.summary["input"] is None


def test_cli_skip_bad(run_cli, mixed):
    proc = run_cli("run", "--trace", str(mixed), "--format", "heimdall", "--device", DEVICE)
    assert proc.returncode == 2
    assert f"{mixed}:2:" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_cli(
        "run", "--trace", str(mixed), "--format", "heimdall", "--device", DEVICE, "--skip-bad"
    )
    assert proc.returncode == 0, proc.stderr
    assert "2 bad lines skipped" in proc.stdout
    assert f"first bad line: {mixed}:2:" in proc.stdout
    proc = run_cli(
        "run",
        "--trace",
        str(mixed),
        "--format",
        "heimdall",
        "--device",
        DEVICE,
        "--skip-bad",
        "--json",
        "-",
    )
    assert json.loads(proc.stdout)["input"]["bad_lines"] == 2


def test_scan_trace(mixed):
    st = flashsched.scan_trace(mixed, "heimdall", skip_bad=True)
    assert st == _core.scan_trace(mixed, "heimdall", skip_bad=True)
    assert st["format"] == "heimdall"
    assert (st["lines"], st["records"], st["bad_lines"]) == (5, 3, 2)
    with pytest.raises(flashsched.TraceError, match=":2:"):
        _core.scan_trace(mixed, "heimdall")


def test_scan_real_samples(traces_dir):
    path = traces_dir / "blkparse" / "ycsb-ext4.blkparse.txt"
    st = _core.scan_trace(path, time_order="clamp")
    assert st["format"] == "blkparse"
    assert st["records"] == 9886 and st["bad_lines"] == 0
    # blkparse lists per-CPU batches: many D events step back in time;
    # the sort window (the default for blkparse) puts every one back in order.
    assert st["clamped"] > 1000
    for order in ("sort", "auto"):
        st = _core.scan_trace(path, time_order=order)
        assert (st["records"], st["clamped"], st["time_order"]) == (9886, 0, "sort")


def test_cli_time_order_sort(run_cli, traces_dir):
    path = traces_dir / "blkparse" / "ycsb-f2fs.blkparse.txt"
    args = ["run", "--trace", str(path), "--device", DEVICE, "--limit", "500", "--json", "-"]
    proc = run_cli(*args, "--time-order", "sort")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["input"]["clamped"] == 0


# A core panic becoming SimulationError (catch_unwind around every binding
# entry point) is tested in Rust (flashsched_core::error tests): production
# code has no deliberate panic trigger to reach from Python.
