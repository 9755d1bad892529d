"""``flashsched compare`` and the workloads it drives (profiles, Postmark)."""

from __future__ import annotations

from pathlib import Path

import flashsched
import pytest
from flashsched.cli import main

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
    assert df["norm_mean"].iloc[1] == pytest.approx(df["mean_us"].iloc[1] / df["mean_us"].iloc[0])


def test_compare_rejects_unknown_scheduler() -> None:
    with pytest.raises(flashsched.ConfigError, match="host.scheduler"):
        flashsched.compare(synthetic=SMALL, host_sched="noop,nope", device=DEV)


def test_postmark_reports_transactions_per_second() -> None:
    df = flashsched.compare(postmark="files=50,tx=40,qd=4,max=256k", host_sched="noop", device=DEV)
    assert df["tx_s"].iloc[0] > 0
    with pytest.raises(flashsched.ConfigError, match="postmark.bogus"):
        flashsched.run(synthetic="postmark:bogus=1", device=DEV)


def test_profile_workload_is_labelled_synthetic() -> None:
    res = flashsched.run(synthetic="profile:web1,n=500", device=DEV)
    assert res.summary["requests"] == 500
    assert "synthetic profile web1" in res.summary["workload"]


def test_cli_compare_table_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "cdf.png"
    csv = tmp_path / "t.csv"
    rc = main(
        [
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
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert "deadline" in out and "norm_mean" in out
    assert png.stat().st_size > 0 and csv.stat().st_size > 0
