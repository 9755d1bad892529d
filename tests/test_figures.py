"""The shared figure style (flashsched/plotstyle.py): words and units for
keys, one colour per scheduler, readable log ticks, outliers annotated, and
the check every figure made by the test suite passes (conftest.py)."""

from __future__ import annotations

import re
from pathlib import Path

import flashsched
import pytest
from flashsched import plotstyle as ps

DEVICE = "ssdsim-default"


@pytest.mark.parametrize(
    ("key", "words"),
    [
        ("read_latency_us.mean", "mean read latency (µs)"),
        ("latency_us.p99", "99th-percentile latency (µs)"),
        ("bandwidth_mib_s", "bandwidth (MiB/s)"),
        ("ftl.gc_policy", "GC victim policy"),
        ("timing.program_us", "page program time (µs)"),
        ("flash.flp", "flash-level parallelism (busy dies per busy chip)"),
        ("controller.multiplane_us", "multiplane (µs)"),  # not listed: derived
        ("host.deadline.read_expire_ms", "read expire (ms)"),
        ("queue_depth", "queue depth"),
    ],
)
def test_keys_in_words(key: str, words: str) -> None:
    assert ps.label(key) == words
    assert not ps._RAW.search(words)


def test_normalised_labels_name_the_baseline_as_the_title_does() -> None:
    assert ps.normalised("read_latency_us.mean", "fifo") == "mean read latency, normalised to FIFO"
    assert ps.normalised("latency_us.mean", "noop") == "mean latency, normalised to NOOP"
    assert ps.display("amphibian:size_ordering=false") == "Amphibian (size_ordering=false)"


@pytest.mark.unchecked_figures
def test_raw_key_axis_label_is_caught(tmp_path: Path) -> None:
    """A figure labelled with a raw key, as the VIOS figure once was, fails
    the check and warns when saved."""
    fig, ax = ps.plt.subplots()
    ax.bar([0, 1], [1.0, 0.8])
    ax.set_ylabel("read_latency_us.mean / fifo")
    assert ps.raw_labels(fig) == ["read_latency_us.mean / fifo"]
    assert any("raw key" in p for p in ps.problems(fig))
    with pytest.warns(ps.RawLabelWarning):
        ps.png_bytes(fig)
    for raw in ("iops_per_s", "gc.invocations", "latency / noop"):
        fig, ax = ps.plt.subplots()
        ax.set_xlabel(raw)
        assert ps.raw_labels(fig) == [raw], raw
        ps.plt.close(fig)


def test_legend_over_data_and_title_disagreeing_with_axis_are_caught() -> None:
    fig, ax = ps.plt.subplots()
    ax.plot([0, 1], [0, 1], label="a")
    ax.legend(loc="center")
    ax.set_title("Read latency normalised to NOOP")
    ax.set_ylabel("mean read latency, normalised to FIFO")
    found = ps.problems(fig)
    assert any("legend over the data" in p for p in found), found
    assert any("NOOP but y axis to FIFO" in p for p in found), found
    ps.legend_outside(ax)
    ax.set_title("Read latency normalised to FIFO")
    assert ps.problems(fig) == []
    ps.plt.close(fig)


def test_log_ticks_are_plain_numbers() -> None:
    for lo, hi in ((50, 20_000), (100, 5_000), (3, 3_000_000), (0.02, 0.9)):
        fig, ax = ps.plt.subplots()
        ax.plot([lo, hi], [0, 1])
        ps.log_axis(ax, "x")
        fig.canvas.draw()
        texts = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
        assert len(texts) >= 2, (lo, hi, texts)
        assert all(re.fullmatch(r"[\d,.]+", t) for t in texts), (lo, hi, texts)
        assert ps.problems(fig) == []
        ps.plt.close(fig)


def test_one_colour_per_scheduler() -> None:
    host = [ps.style(s)["color"] for s in flashsched.host_schedulers()]
    dev = [ps.style(s)["color"] for s in flashsched.device_schedulers()]
    assert len(set(host)) == len(host) and len(set(dev)) == len(dev)
    # the same in every figure, and across processes (no salted hash)
    assert ps.style("amphibian") == ps.style("amphibian")
    assert (
        ps.style("my-variant")["color"]
        == ps.PALETTE[__import__("zlib").crc32(b"my-variant") % len(ps.PALETTE)]
    )
    # within one figure an unknown name never takes a listed scheduler's colour
    st = ps.styles(["noop", "amphibian", "A-noGC", "A-type", "A-size", "A-oracle"])
    colours = [v["color"] for v in st.values()]
    assert len(set(colours)) == len(colours)
    assert st["noop"] == {k: v for k, v in ps.style("noop").items()}


def test_a_dwarfing_bar_is_cut_and_annotated() -> None:
    fig, ax = ps.plt.subplots()
    vals = [1.0, 0.9, 1.1, 0.8, 24.8, 1.0]
    ax.bar(range(6), vals)
    assert ps.clip_outliers(ax, vals, list(range(6)), floor=1.0)
    assert ax.get_ylim()[1] == pytest.approx(1.1 * 1.6)
    notes = [t.get_text() for t in ax.texts]
    assert notes == ["⇡ 24.8"]
    ps.plt.close(fig)
    # small bars far below the others are not outliers; nor is a majority
    for vals in ([1.0, 0.9, 0.1, 0.05, 1.2], [1.0, 10.0, 11.0, 12.0]):
        fig, ax = ps.plt.subplots()
        assert not ps.clip_outliers(ax, vals, list(range(len(vals))))
        assert len(ax.texts) == 0
        ps.plt.close(fig)


def test_sweep_report_splits_by_the_swept_axes(tmp_path: Path) -> None:
    """greedy vs cost-benefit over queue depth and two workloads: the
    policies are the series, queue depth the x axis, workloads the panels."""
    import pandas as pd
    from flashsched.report import sweep as rs

    spec = {
        "name": "split",
        "base": {"device": DEVICE, "set": ["ftl.precondition_fill=0.9"]},
        "workloads": {
            "a": {"synthetic": "read=0.3,bs=4k,iops=3000,n=800"},
            "b": {"synthetic": "read=0.7,bs=4k,iops=3000,n=800"},
        },
        "grid": {"ftl.gc_policy": ["greedy", "cost-benefit"], "queue_depth": [1, 4, 16]},
    }
    df = flashsched.sweep(spec, out=tmp_path, workers=1)
    axes = rs.swept_axes(df)
    assert set(axes) == {"workload", "ftl.gc_policy", "queue_depth"}
    assert rs.layout(df, axes) == ("queue_depth", "ftl.gc_policy", ["workload"])
    fig, _ = rs.metric_figure(df, "latency_us.mean", axes)
    panels = [a for a in fig.get_axes() if a.get_visible()]
    assert [a.get_title() for a in panels] == ["a", "b"]
    legend = panels[-1].get_legend()
    assert [t.get_text() for t in legend.get_texts()] == ["greedy", "cost-benefit"]
    assert legend.get_title().get_text() == "GC victim policy"
    assert ps.problems(fig) == []
    ps.plt.close(fig)
    page = flashsched.report(tmp_path).read_text()
    assert page.count("<h1>Sweep: split</h1>") == 1 and "<h2 id='sweep-split'>" not in page
    assert page.count("<img") >= 4
    rows = pd.read_parquet(tmp_path / "results.parquet")
    assert page.count("<tr>") >= len(rows) + 1  # every run listed, no cut


def test_report_of_a_run_directory(tmp_path: Path) -> None:
    res = flashsched.run(
        synthetic="read=0.6,bs=4k-16k,iops=3000,n=3000", device=DEVICE, check=True, bin_ms=100
    )
    res.save(tmp_path)
    page = flashsched.report(tmp_path).read_text()
    assert "Run: synthetic" in page and "page reads verified" in page
    assert page.count("<img") == 2  # the time series and the latency CDFs


def test_report_of_a_directory_of_results(tmp_path: Path) -> None:
    for name in ("one", "two"):
        flashsched.run(synthetic="n=200", device=DEVICE).save(tmp_path / name)
    (tmp_path / "junk").mkdir()
    page = flashsched.report(tmp_path).read_text()
    assert "one: Run" in page and "two: Run" in page
    with pytest.raises(FileNotFoundError, match="not a results directory"):
        flashsched.report(tmp_path / "junk")
