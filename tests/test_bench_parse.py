"""``flashsched bench --parse``: the generated traces read like one long trace
(every line a record, copies appended with later timestamps)."""

from __future__ import annotations

import pytest
from flashsched import _core, bench_parse


@pytest.mark.parametrize("fmt", list(bench_parse.CASES))
def test_generated_traces_parse_cleanly(fmt, traces_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHSCHED_TRACES", str(traces_dir))
    n = 25_000  # more than one copy of every sample
    path = bench_parse.generate(fmt, n, tmp_path)
    st = _core.scan_trace(path, fmt)
    assert st["lines"] == n
    assert st["bad_lines"] == 0
    if fmt == "blkparse":
        # blkparse keeps its other events (C, I, Q, ...) as non-records.
        assert 0 < st["records"] < n
    else:
        assert st["records"] + st["dropped"] == n
    # Copies follow each other in time: only the samples' own steps back
    # (blkparse's merged CPUs) are clamped.
    single = _core.scan_trace(traces_dir / bench_parse.CASES[fmt][0], fmt)
    copies = -(-n // max(single["lines"], 1))
    assert st["clamped"] <= single["clamped"] * copies


def test_measure_reports_speed(traces_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("FLASHSCHED_TRACES", str(traces_dir))
    path = bench_parse.generate("heimdall", 1000, tmp_path)
    assert bench_parse.generate("heimdall", 1000, tmp_path) == path  # reused
    r = bench_parse.measure(str(path), "heimdall")
    assert r["lines"] == r["records"] == 1000
    assert r["lines_per_s"] > 0 and r["peak_rss_mib"] > 0
