"""Result objects: time-series bins of any width, the summary's check
section, overrides as a mapping, short and HTML reprs, file permissions."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import flashsched
import numpy as np
import pandas as pd
import pytest

DEVICE = "ssdsim-default"


def test_bins_of_one_second_match_the_core_series(small_result):
    """The records-based bins at 1000 ms are the core's per-second series."""
    core = small_result.timeseries
    ours = small_result.series(1000)
    for col in ("time_s", "ios", "reads", "writes", "bytes", "iops", "mib_s"):
        np.testing.assert_array_equal(ours[col].to_numpy(), core[col].to_numpy(), err_msg=col)
    np.testing.assert_allclose(ours["mean_latency_us"], core["mean_latency_us"])
    np.testing.assert_allclose(ours["p99_latency_us"], core["p99_latency_us"])


def test_bins_by_hand(fig5_trace, helpers):
    """Four reads of the Fig. 5 device at t=0 complete at 200, 250, 300 and
    350 µs (a 16 KiB read is four 50 µs page reads, then one page each).
    100 µs bins: two completions in [200, 300) and two in [300, 400); 50 µs
    bins: one in each of bins 4 to 7, none before."""
    kw = dict(
        trace=fig5_trace,
        format="ascii-ns",
        device="default",
        overrides=helpers.FIG5_OVERRIDES,
        queue_depth=1,
    )
    ts = flashsched.run(**kw, bin_ms=0.1).timeseries
    assert list(ts["ios"]) == [0, 0, 2, 2]
    np.testing.assert_allclose(ts["time_s"], [0, 1e-4, 2e-4, 3e-4])
    assert ts["mean_latency_us"].isna().tolist() == [True, True, False, False]
    np.testing.assert_allclose(ts["mean_latency_us"].iloc[2:], [225.0, 325.0])
    np.testing.assert_allclose(ts["p99_latency_us"].iloc[2:], [250.0, 350.0])
    assert list(ts["bytes"]) == [0, 0, 16384 + 4096, 2 * 4096]
    assert ts["iops"].iloc[2] == pytest.approx(2 / 1e-4)
    ts = flashsched.run(**kw, bin_ms=0.05).timeseries
    assert list(ts["ios"]) == [0, 0, 0, 0, 1, 1, 1, 1]
    np.testing.assert_allclose(ts["mean_latency_us"].iloc[4:], [200.0, 250.0, 300.0, 350.0])


def test_bins_need_records():
    res = flashsched.run(synthetic="n=50", device=DEVICE, keep_records=False)
    with pytest.raises(flashsched.ArgumentValueError, match="records"):
        res.series(10)
    with pytest.raises(flashsched.ArgumentTypeError, match="bin_ms"):
        flashsched.run(synthetic="n=50", device=DEVICE, bin_ms="10")


def test_check_section_counts_what_the_checker_did():
    off = flashsched.run(synthetic="read=0.5,bs=4k,iops=2000,n=500", device=DEVICE, seed=1)
    assert off.summary["check"] == {"enabled": False}
    on = flashsched.run(
        synthetic="read=0.5,bs=4k,iops=2000,n=500", device=DEVICE, seed=1, check=True
    )
    c = on.summary["check"]
    assert c["enabled"] is True
    # every 4 KiB read of a 2 KiB-page device is two page reads, each verified
    assert c["page_reads_verified"] == on.summary["flash"]["user_page_reads"]
    assert c["page_reads_verified"] == 2 * on.summary["reads"]
    assert c["audits"] >= 1  # the final audit at least
    geometry = 2 * 2 * 2 * 2 * 2048 * 64  # ssdsim-default's pages
    assert c["pages_audited"] == c["audits"] * geometry
    assert c["records"] > c["page_reads_verified"]
    # results do not depend on check mode
    for k in ("requests", "latency_us", "gc", "waf"):
        assert on.summary[k] == off.summary[k], k


def test_array_check_section_sums_ssds():
    res = flashsched.run_array(
        layout="raid0", ssds=2, device=DEVICE, phases=["read=0.5,bs=8k,qd=4,n=200"], check=True
    )
    c = res.summary["check"]
    assert c["enabled"] and c["page_reads_verified"] > 0
    assert c["pages_audited"] == c["audits"] * 2 * 2 * 2 * 2 * 2048 * 64


def test_overrides_as_a_mapping_equal_strings():
    a = flashsched.run(
        synthetic="n=300", device=DEVICE, overrides={"timing.read_us": 50, "ftl.copyback": True}
    )
    b = flashsched.run(
        synthetic="n=300", device=DEVICE, overrides=["timing.read_us=50", "ftl.copyback=true"]
    )
    assert a.config_toml == b.config_toml
    assert "read_us = 50.0" in a.config_toml
    assert flashsched.load_config(DEVICE, {"timing.read_us": 50}) == flashsched.load_config(
        DEVICE, "timing.read_us=50"
    )


def test_reprs_are_short(small_result):
    r = repr(small_result)
    assert r.startswith("<RunResult ssdsim-default noop/ssdsim-fcfs: 4,000 requests")
    assert "µs" in r and "MiB/s" in r and len(r) < 160 and "\n" not in r
    page = small_result._repr_html_()
    assert page.startswith("<table>") and "MiB/s" in page and "4,000" in page
    arr = flashsched.run_array(layout="raid0", ssds=2, device=DEVICE, phases=["n=100"])
    assert repr(arr).startswith("<ArrayResult raid0") and len(repr(arr)) < 160
    assert "<table>" in arr._repr_html_()


def test_outputs_are_world_readable(tmp_path):
    """Files follow the umask as open() does (0644 under 022), including the
    atomically written sweep files (temp files are created 0600)."""
    old = os.umask(0o022)
    try:
        flashsched.sweep(
            {"name": "perm", "base": {"device": DEVICE}, "workloads": {"w": {"synthetic": "n=50"}}},
            out=tmp_path / "sw",
            workers=1,
        )
        flashsched.run(synthetic="n=50", device=DEVICE).save(tmp_path / "run")
        flashsched.report(tmp_path / "sw")
    finally:
        os.umask(old)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) >= 6
    for p in files:
        assert stat.S_IMODE(p.stat().st_mode) == 0o644, p


def test_sweep_table_dtypes_do_not_depend_on_which_runs_exist(tmp_path, helpers):
    """Counts stay integers (nullable Int64) when some runs lack them (the
    trace input section exists only for trace workloads), never floats;
    booleans stay booleans."""
    trace = tmp_path / "t.trace"
    trace.write_text("0 0 0 32 1\n0 0 20000 8 1\n")
    spec = {
        "name": "dtypes",
        "base": {"device": DEVICE},
        "workloads": {
            "syn": {"synthetic": "n=100"},
            "tr": {"trace": str(trace), "format": "ascii-ns"},
        },
    }
    df = flashsched.sweep(spec, out=tmp_path / "sw", workers=1)
    back = pd.read_parquet(tmp_path / "sw" / "results.parquet")
    for d in (df, back):
        assert str(d["input.lines"].dtype) == "Int64"
        assert d["input.lines"].isna().sum() == 1
        assert d["requests"].dtype == np.int64
        assert d["check.enabled"].dtype == bool
        assert d["latency_us.mean"].dtype == np.float64
    only_syn = flashsched.sweep(
        {**spec, "workloads": {"syn": spec["workloads"]["syn"]}}, out=tmp_path / "sw2", workers=1
    )
    assert only_syn["requests"].dtype == np.int64
    assert "input.lines" not in only_syn
    assert json.loads((tmp_path / "sw" / "sweep.json").read_text())["name"] == "dtypes"


def test_text_summary_names_read_modify_write_reads(tmp_path: Path) -> None:
    """The text summary counts a partial write's reads of the page's other
    valid sectors (``ftl.update_reads``) among the page reads, by name;
    without any the line says nothing of them. Worked example: one chip,
    4 KiB pages; sectors 0-3 of LPN 0 written, then sectors 4-7: one
    update read."""
    from flashsched import api
    from flashsched.textsummary import render

    base = ["geometry.channels=1", "geometry.chips_per_channel=1", "ftl.update_reads=mqsim"]
    trace_text = "0 0 0 4 0\n1000000 0 4 4 0\n"

    p = tmp_path / "t.ascii"
    p.write_text(trace_text)

    def run(extra: list[str]) -> str:
        res = api.run(trace=p, format="ascii-ns", device="default", overrides=base + extra)
        return render(res.summary)

    on = run(["geometry.page_size=4096"])
    off = run(["geometry.page_size=4096", "ftl.update_reads=off"])
    assert "1 page reads (1 read-modify-write)" in on, on
    assert "read-modify-write" not in off, off


def test_timeseries_csv_is_what_pandas_writes(tmp_path: Path) -> None:
    """`save` writes the core's series itself (no pandas import): the same
    text pandas' `to_csv` gives, idle seconds included (zero counts, empty
    latencies). Arrivals at 0, 2.5 and 7 s: seconds 1 and 3-6 are idle."""
    trace = tmp_path / "t.csv"
    times = [0, 25_000_000, 70_000_000]  # 100 ns units
    trace.write_text(
        "".join(
            f"{128166372000000000 + t},hm,0,Read,{i * 4096},4096,100\n" for i, t in enumerate(times)
        )
    )
    res = flashsched.run(trace=trace, format="msr")
    out = res.save(tmp_path / "out")
    ts = res.timeseries
    assert list(ts["ios"]) == [1, 0, 1, 0, 0, 0, 0, 1]
    assert ts["mean_latency_us"].isna().sum() == 5
    assert (out / "timeseries.csv").read_text() == ts.to_csv(index=False)


def test_csv_writer_formats_as_pandas(tmp_path: Path) -> None:
    from flashsched.results import write_csv

    cols = {
        "i": np.array([0, -3, 2**40], np.int64),
        "f": np.array([0.1, np.nan, 1e16]),
        "g": np.array([1 / 3, 3.0, 2.5e-5]),
    }
    write_csv(tmp_path / "a.csv", cols)
    assert (tmp_path / "a.csv").read_text() == pd.DataFrame(cols).to_csv(index=False)


def test_csv_writer_agrees_with_pandas_on_any_double(tmp_path: Path) -> None:
    """Every float as Python's repr writes it: random bit patterns (all
    magnitudes, subnormals, NaNs), values near the positional/scientific
    boundaries, and the columns a series holds."""
    from flashsched.results import write_csv

    rng = np.random.default_rng(23)
    bits = rng.integers(0, 2**63, 200_000, dtype=np.int64) * rng.choice([1, -1], 200_000)
    edges = np.array(
        [0.0, -0.0, 1e-4, 9.999999999999999e-05, 1e-5, 1e15, 9999999999999998.0, 1e16]
        + [np.inf, -np.inf, 5e-324, np.finfo(float).max, 0.1 + 0.2, 123456.789e-9]
    )
    scaled = rng.random(50_000) * 10.0 ** rng.integers(-8, 20, 50_000)
    cols = {
        "n": np.arange(200_000, dtype=np.int64) - 7,
        "bits": bits.view(np.float64),
        "mixed": np.resize(np.concatenate([edges, scaled, -scaled]), 200_000),
        "small": np.resize(np.array([3, 4_000_000_000, 0], np.uint32), 200_000),
    }
    write_csv(tmp_path / "a.csv", cols)
    assert (tmp_path / "a.csv").read_text() == pd.DataFrame(cols).to_csv(index=False)


def test_csv_writer_refuses_what_it_cannot_write_exactly(tmp_path: Path) -> None:
    from flashsched.results import write_csv

    with pytest.raises(TypeError, match="'u' is uint64"):
        write_csv(tmp_path / "a.csv", {"u": np.array([2**64 - 1], np.uint64)})
    with pytest.raises(ValueError, match="column `b` has 1 rows, the first has 2"):
        write_csv(tmp_path / "a.csv", {"a": np.zeros(2), "b": np.zeros(1)})
