"""``flashsched compare`` and the workloads it drives (profiles, Postmark)."""

from __future__ import annotations

import json
from pathlib import Path

import flashsched
import pandas as pd
import pytest
from flashsched.cli import main
from flashsched.legacy import SSDSIM_PLAIN

SMALL = "read=0.6,bs=4k-64k,iops=20000,n=3000"
DEV = "ssdsim-default"


def test_compare_cross_product_and_normalisation() -> None:
    df = flashsched.compare(
        synthetic=SMALL,
        host_sched="noop,amphibian,amphibian:size_ordering=false",
        device=DEV,
        queue_depth=16,
    )
    assert list(df["host_sched"]) == ["noop", "amphibian", "amphibian:size_ordering=false"]
    assert (df["requests"] == 3000).all()
    assert df["norm_mean"].iloc[0] == 1.0
    mean = df["mean_latency_us"]
    assert df["norm_mean"].iloc[1] == pytest.approx(mean.iloc[1] / mean.iloc[0])


def test_compare_scores_the_gc_detector() -> None:
    """A GC-aware host scheduler's detector is scored against the device's
    GC periods: the oracle holds a zone outside GC only while the full
    device queue keeps it from being asked (a sliver of the time);
    schedulers without a detector have no score."""
    df = flashsched.compare(
        synthetic="read=0.3,bs=4k,iops=4000,n=6000,span=1g",
        host_sched="noop,amphibian:gc_detect=oracle",
        device=DEV,
        # The plain (die-busy, interleaved-GC) device: with SSDsim's blocking
        # GC this load saturates it and the oracle is rarely asked.
        overrides=[*SSDSIM_PLAIN, "ftl.precondition_fill=0.9"],
        queue_depth=16,
    )
    noop, oracle = df.iloc[0], df.iloc[1]
    assert pd.isna(noop["gc_precision"]) and pd.isna(noop["gc_flags"])
    assert oracle["gc_flags"] > 0, "no GC seen: the case does not exercise the detector"
    assert 0.999 < oracle["gc_precision"] <= 1.0
    assert 0.99 < oracle["gc_recall"] <= 1.0


def test_compare_rejects_unknown_scheduler() -> None:
    with pytest.raises(flashsched.ConfigError, match="host.scheduler"):
        flashsched.compare(synthetic=SMALL, host_sched="noop,nope", device=DEV)


def test_postmark_reports_transactions_per_second() -> None:
    df = flashsched.compare(postmark="files=50,tx=40,qd=4,max=256k", host_sched="noop", device=DEV)
    assert df["tx_s"].iloc[0] > 0
    with pytest.raises(flashsched.ConfigError, match="postmark.bogus"):
        flashsched.run(synthetic="postmark:bogus=1", device=DEV)


def test_postmark_think_time_and_write_behind_end_to_end() -> None:
    """One worker, 4 KiB files, read-then-create transactions, 1 ms think
    time, writes behind: worked by hand on the simulated device. Each
    transaction's read arrives 1 ms after the previous transaction's read
    completed (its create's write went behind at that instant, so the
    worker waited for nothing else), and each create is issued the moment
    its read completes."""
    spec = "files=1,tx=4,qd=1,min=4k,max=4k,io=4k,read=1,create=1,wb=1,think=1000"
    res = flashsched.run(synthetic="postmark:" + spec, device=DEV, check=True)
    rq = res.requests.sort_values(["arrival_ns", "op"]).reset_index(drop=True)
    reads = rq[rq["op"] == "read"].reset_index(drop=True)
    writes = rq[rq["op"] == "write"].reset_index(drop=True)
    assert len(reads) == 4 and len(writes) == 4
    assert reads["arrival_ns"].iloc[0] == 0
    for i in range(4):
        assert writes["arrival_ns"].iloc[i] == reads["complete_ns"].iloc[i]
    for i in range(1, 4):
        assert reads["arrival_ns"].iloc[i] == reads["complete_ns"].iloc[i - 1] + 1_000_000
    assert (writes["size"] == 4096).all() and (reads["size"] == 4096).all()


def test_profile_workload_is_labelled_synthetic() -> None:
    res = flashsched.run(synthetic="profile:web1,n=500", device=DEV)
    assert res.summary["requests"] == 500
    assert "synthetic profile web1" in res.summary["workload"]


def test_cli_compare_table_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "cdf.png"
    csv = tmp_path / "t.csv"
    out = tmp_path / "cmp"
    argv = [
        "compare",
        "--synthetic",
        SMALL,
        "--device",
        DEV,
        "--host-sched",
        "noop,deadline",
        "--device-sched",
        "fifo",
        "--plot",
        str(png),
        "--csv",
        str(csv),
        "--out",
        str(out),
        "--workers",
        "2",
        "--no-progress",
    ]
    assert main(argv) == 0
    cap = capsys.readouterr()
    assert "deadline" in cap.out and "norm_mean" in cap.out
    assert png.stat().st_size > 0 and csv.stat().st_size > 0
    for name in ("compare.csv", "compare.parquet", "compare.json", "results.parquet"):
        assert (out / name).is_file(), name
    for name in ("latency_cdf", "normalised"):
        assert (out / "figures" / f"{name}.png").stat().st_size > 0
    table = pd.read_parquet(out / "compare.parquet")
    assert list(table["host_sched"]) == ["noop", "deadline"]
    assert json.loads((out / "compare.json").read_text())[1]["host_sched"] == "deadline"
    # the runs are cached: a second identical comparison simulates nothing
    df = flashsched.compare(
        synthetic=SMALL, device=DEV, host_sched="noop,deadline", device_sched="fifo", out=out
    )
    assert (out / "results.parquet").is_file()
    assert len(list((out / "runs").glob("*.json"))) == 2
    pd.testing.assert_frame_equal(
        df.drop(columns=["key"]).reset_index(drop=True),
        table.drop(columns=["key"]).reset_index(drop=True),
        check_dtype=False,
    )
    # and the directory makes a report
    page = flashsched.report(out).read_text()
    assert "Scheduler comparison" in page and page.count("<img") >= 2


def test_compare_runs_in_parallel_with_check(tmp_path: Path) -> None:
    df = flashsched.compare(
        synthetic=SMALL,
        device=DEV,
        host_sched=["noop", "deadline", "cfq"],
        check=True,
        workers=2,
        out=tmp_path,
    )
    assert len(df) == 3 and (df["requests"] == 3000).all()
    runs = [json.loads(p.read_text()) for p in (tmp_path / "runs").glob("*.json")]
    assert all(r["summary"]["check"]["enabled"] for r in runs)


def test_compare_rejects_bad_arguments() -> None:
    with pytest.raises(flashsched.ArgumentTypeError, match="host_sched"):
        flashsched.compare(synthetic=SMALL, host_sched=3)
    with pytest.raises(flashsched.ArgumentValueError, match="workload"):
        flashsched.compare(host_sched="noop")
    with pytest.raises(flashsched.ArgumentValueError, match="key=value"):
        flashsched.compare(synthetic=SMALL, host_sched="amphibian:oops", device=DEV)
