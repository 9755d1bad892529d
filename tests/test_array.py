"""SSD arrays from Python: run_array results and the array-compare CLI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import flashsched
import pytest

SMALL_SSD = [
    "geometry.channels=2",
    "geometry.chips_per_channel=2",
    "geometry.dies_per_chip=1",
    "geometry.planes_per_die=1",
    "geometry.blocks_per_plane=64",
    "geometry.pages_per_block=32",
    "geometry.page_size=16384",
    "ftl.overprovisioning=0.1",
]
PHASES = [
    "read=0,bs=256k,qd=32,n=800,align=256k",
    "read=0,bs=64k,qd=32,n=4000,align=64k,span=32m",
]


def test_run_array_serial_no_front_gc() -> None:
    res = flashsched.run_array(
        layout="serial,verify=true,victim=greedy,segment=512k",
        overrides=SMALL_SSD,
        bin_ms=50,
        phases=PHASES,
        seed=1,
        warn=False,
    )
    s = res.summary
    assert s["requests"] == 4800
    assert s["serial"]["rotations"] >= 2
    assert s["serial"]["version_mismatches"] == 0
    assert s["front_gc_violations"] == 0
    assert s["max_valid_pages_after_trim"] == 0
    bw = res.bandwidth
    assert {"time_s", "array_mib_s", "ssd0_write_mib_s", "ssd3_read_mib_s"} <= set(bw.columns)
    # Completed bytes in the series add up to what the summary reports.
    total = (bw["array_mib_s"] * 2**20 * res.bin_s).sum()
    assert total == pytest.approx(s["bytes_written"], rel=1e-9)
    gc = res.gc
    assert set(gc["ssd"]) == {0, 1, 2, 3}
    assert (gc["gc_moved_cumulative"] == 0).all(), "no internal GC, no pages moved"
    assert len(res.per_ssd) == 4
    acc = s["accounting"]
    assert acc["user_bytes"] == s["bytes_written"] and acc["internal_gc_bytes"] == 0
    assert acc["array_waf"] == pytest.approx(acc["flash_bytes_written"] / acc["user_bytes"])


def test_stalls_warn() -> None:
    """A serial volume with too little spare room: writes wait for xGC, and
    run_array says so (ArrayWarning) as well as counting it."""
    from flashsched.array import ArrayWarning

    with pytest.warns(ArrayWarning) as got:
        res = flashsched.run_array(
            layout="serial,volume=0.7",
            overrides=SMALL_SSD,
            phases=["read=0,bs=64k,qd=32,n=16000,align=64k"],
        )
    assert any("waited for xGC" in str(w.message) for w in got)
    acc = res.summary["accounting"]
    assert acc["stall_events"] > 0 and acc["stall_ms"] > 0
    assert any("keep-up" in w for w in res.warnings)


def test_front_mask_shows_every_front_end() -> None:
    """Two front-ends: `front` is the first, `front_mask` has both bits
    (one while the space rules leave only one SSD able to take the role)."""
    res = flashsched.run_array(
        layout="serial,front=2", overrides=SMALL_SSD, bin_ms=50, phases=PHASES, warn=False
    )
    bw = res.bandwidth
    masks = bw["front_mask"].to_numpy()
    bits = [bin(int(m)).count("1") for m in masks]
    assert set(bits) <= {1, 2} and bits.count(2) > len(bits) / 2, set(masks)
    assert all((int(m) >> int(f)) & 1 for m, f in zip(masks, bw["front"]))
    assert res.summary["serial"]["rotations"] >= 2


def test_gc_pages_moved_series_matches_summary() -> None:
    res = flashsched.run_array(
        layout="raid0", overrides=SMALL_SSD, bin_ms=50, phases=["read=0,bs=16k,qd=32,n=40000"]
    )
    moved = res.gc.groupby("ssd")["gc_moved_cumulative"].max()
    assert moved.sum() == sum(x["gc_pages_moved"] for x in res.summary["per_ssd"]) > 0
    assert res.gc["gc_moved_in_bin"].sum() == moved.sum()


def test_run_array_raid0_link_cap() -> None:
    res = flashsched.run_array(
        layout="raid0", overrides=SMALL_SSD, link="1,overhead=5us", bin_ms=20, phases=PHASES[1:]
    )
    bw = res.bandwidth
    line = 125e6 / 2**20  # 1 Gbit/s in MiB/s
    assert (bw["wire_in_mib_s"] <= line + 1e-6).all()
    assert res.summary["bandwidth_mib_s"] <= line
    assert res.summary["gc_invocations"] == res.gc.groupby("ssd")["gc_cumulative"].max().sum()


def test_bad_layout_raises_config_error() -> None:
    with pytest.raises(flashsched.ConfigError, match="array.victim"):
        flashsched.run_array(layout="serial,victim=best", overrides=SMALL_SSD, phases=PHASES)
    with pytest.raises(flashsched.ConfigError, match="raid6"):
        flashsched.run_array(layout="raid6", overrides=SMALL_SSD, phases=PHASES)
    with pytest.raises(flashsched.ConfigError, match="array.writers"):
        flashsched.run_array(overrides=SMALL_SSD, writers=(0, 1 << 20, 65536, 1))
    with pytest.raises(flashsched.ConfigError, match="array.bin"):
        flashsched.run_array(overrides=SMALL_SSD, phases=PHASES, bin_ms=0.001)
    with pytest.raises(flashsched.ConfigError, match="array.link"):
        flashsched.run_array(overrides=SMALL_SSD, phases=PHASES, link="fast")
    with pytest.raises(flashsched.ConfigError, match="array.link.efficiency"):
        flashsched.run_array(overrides=SMALL_SSD, phases=PHASES, link="10gbe,efficiency=2")
    with pytest.raises(flashsched.ConfigError, match="array.ssd_speeds"):
        flashsched.run_array(overrides=SMALL_SSD, phases=PHASES, ssd_speeds=[1.0, 1.0])
    with pytest.raises(flashsched.ConfigError, match="array.dests"):
        flashsched.run_array(layout="serial,dests=3", overrides=SMALL_SSD, phases=PHASES)


def test_array_compare_cli(tmp_path: Path) -> None:
    # half the dies, a short run
    small = ["--set=geometry.chips_per_channel=2", "--aging-min=3", "--measure-min=6"]
    proc = subprocess.run(
        [sys.executable, "-m", "flashsched", "array-compare", "--out", str(tmp_path), *small],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    lines = {ln.split()[0]: ln.split() for ln in proc.stdout.splitlines() if ln.strip()}
    for name in ("raid0", "serial"):
        mean, p1, p99 = (float(x) for x in lines[name][1:4])
        assert 0 <= p1 <= mean <= p99 <= 900e6 / 2**20 * 1.001  # practical 10 GbE, MiB/s
    assert (tmp_path / "array_compare.png").stat().st_size > 0
    assert (tmp_path / "array_compare.svg").stat().st_size > 0
    assert (tmp_path / "serial" / "bandwidth.csv").exists()
    page = flashsched.report(tmp_path).read_text()
    assert "SSD arrays" in page and "serial array" in page and "<img" in page


def test_raid5_counts_rmw_and_full_stripes() -> None:
    res = flashsched.run_array(
        layout="raid5,chunk=64k",
        overrides=SMALL_SSD,
        phases=["read=0,bs=16k,qd=8,n=200,align=16k", "read=0,bs=192k,qd=8,n=50,align=192k"],
    )
    s = res.summary
    assert s["rmw_stripes"] == 200
    assert s["full_stripes"] == 50
    # RMW reads old data + old parity: 2 × 16 KiB per small write.
    assert sum(x["bytes_read"] for x in s["per_ssd"]) == 200 * 2 * 16384
    assert s["volume_bytes"] == 3 * s["ssd_logical_bytes"] // 65536 * 65536
