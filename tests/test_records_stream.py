"""Per-request rows streamed to Parquet as a run goes (records_stream.py):
the file holds exactly the rows an in-memory run gives, in several row
groups; series summed as rows pass equal those from all rows at once; a
failed run leaves no file."""

from __future__ import annotations

import threading
from pathlib import Path

import flashsched
import pandas as pd
import pyarrow.parquet as pq
import pytest
from flashsched import api
from flashsched.records_stream import RecordStream
from flashsched.results import RunResult

WORKLOAD = "read=0.6,bs=4k-32k,iops=40000,n=20000"
SET = ["ftl.precondition_fill=0.5"]


def _streamed(path: Path, rows: int, bin_ms: float | None = None) -> RunResult:
    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, records_held=2 * rows)
    stream = RecordStream(path, rows_per_group=rows, bin_ms=bin_ms)
    # Short chunks, so drains happen as soon as a group's worth is held.
    while not sim.advance(500):
        stream.maybe_drain(sim)
    stream.drain(sim)
    stream.close()
    return RunResult.from_sim(sim, bin_ms or 1000.0, stream)


@pytest.fixture(scope="module")
def whole() -> RunResult:
    return flashsched.run(synthetic=WORKLOAD, overrides=SET, seed=3)


def test_streamed_rows_are_the_rows_of_an_in_memory_run(tmp_path: Path, whole: RunResult) -> None:
    res = _streamed(tmp_path / "r.parquet", rows=3000)
    f = pq.ParquetFile(tmp_path / "r.parquet")
    assert f.metadata.num_rows == 20_000
    assert f.num_row_groups >= 5, "rows must leave in several groups, not at the end"
    pd.testing.assert_frame_equal(res.requests, whole.requests)
    assert not (tmp_path / "r.parquet.partial").exists()
    # The summary is the run's, whichever way its rows went.
    for key in ("latency_us", "read_latency_us", "write_latency_us", "iops", "waf"):
        assert res.summary[key] == whole.summary[key]


@pytest.mark.parametrize("bin_ms", [7.0, 50.0, 1000.0])
def test_series_summed_as_rows_pass_equal_the_series_of_all_rows(
    tmp_path: Path, whole: RunResult, bin_ms: float
) -> None:
    # 1000 rows per piece: bins (7 ms ≈ 280 completions) split across pieces.
    res = _streamed(tmp_path / "r.parquet", rows=1000, bin_ms=bin_ms)
    pd.testing.assert_frame_equal(res.timeseries, whole.series(bin_ms))
    pd.testing.assert_frame_equal(res.series(bin_ms), whole.series(bin_ms))


def test_run_records_to_streams_and_save_copies(tmp_path: Path, whole: RunResult) -> None:
    res = flashsched.run(
        synthetic=WORKLOAD, overrides=SET, seed=3, records_to=tmp_path / "a" / "rows.parquet"
    )
    assert res.requests_file == tmp_path / "a" / "rows.parquet"
    pd.testing.assert_frame_equal(res.requests, whole.requests)
    out = res.save(tmp_path / "b")
    pd.testing.assert_frame_equal(pd.read_parquet(out / "requests.parquet"), whole.requests)


def test_rows_are_encoded_for_their_values(tmp_path: Path, whole: RunResult) -> None:
    # Times as deltas, a dictionary only where there are few values: the
    # streamed file and one saved from memory alike (PARQUET_OPTIONS).
    _streamed(tmp_path / "r.parquet", rows=3000)
    saved = whole.save(tmp_path / "s") / "requests.parquet"
    pd.testing.assert_frame_equal(pd.read_parquet(saved), whole.requests)
    times = ("arrival_ns", "dispatch_ns", "complete_ns")
    for path in (tmp_path / "r.parquet", saved):
        rg = pq.ParquetFile(path).metadata.row_group(0)
        cols = (rg.column(i) for i in range(rg.num_columns))
        enc = {c.path_in_schema: set(c.encodings) for c in cols}
        for c in times:
            assert "DELTA_BINARY_PACKED" in enc[c], (path, c, enc[c])
        for c in (*times, "offset", "latency_us", "wait_us"):
            assert not enc[c] & {"RLE_DICTIONARY", "PLAIN_DICTIONARY"}, (path, c, enc[c])
        for c in ("op", "size", "stream"):
            assert "RLE_DICTIONARY" in enc[c], (path, c, enc[c])


def test_a_stream_without_rows_writes_the_columns(tmp_path: Path, whole: RunResult) -> None:
    stream = RecordStream(tmp_path / "r.parquet", bin_ms=10.0)
    stream.close()
    df = pd.read_parquet(tmp_path / "r.parquet")
    assert df.empty
    assert list(df.columns) == list(whole.requests.columns)
    series = stream.series()
    assert series is not None and series.empty


def test_a_failed_run_leaves_no_file(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    good = [f"{128166372000000000 + i * 10000},hm,0,Read,{i * 4096},4096,100" for i in range(3000)]
    trace.write_text("\n".join([*good, "not,a,trace,line"]) + "\n")
    with pytest.raises(flashsched.TraceError, match="t.csv:3001"):
        flashsched.run(trace=trace, format="msr", records_to=tmp_path / "r.parquet")
    assert not (tmp_path / "r.parquet").exists()
    assert not (tmp_path / "r.parquet.partial").exists()


def test_cli_run_out_streams_the_rows(tmp_path: Path, whole: RunResult) -> None:
    from flashsched.cli import main

    out = tmp_path / "out"
    rc = main(
        [
            "run",
            "--synthetic",
            WORKLOAD,
            "--seed",
            "3",
            "--set",
            SET[0],
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert rc == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "requests.parquet"), whole.requests)


def test_a_write_that_fails_is_raised_not_lost(tmp_path: Path) -> None:
    # The writer thread's error reaches the caller (at the next drain or at
    # close), and the run leaves no file.
    (tmp_path / "file").write_text("in the way")
    with pytest.raises(OSError):
        flashsched.run(
            synthetic=WORKLOAD, overrides=SET, seed=3, records_to=tmp_path / "file" / "r.parquet"
        )
    assert list(tmp_path.iterdir()) == [tmp_path / "file"]


def test_cli_run_keeps_rows_only_for_out(capsys: pytest.CaptureFixture[str]) -> None:
    from flashsched.cli import build_parser
    from flashsched.commands.run import _keep

    p = build_parser()
    base = ["run", "--synthetic", WORKLOAD]
    assert _keep(p.parse_args([*base, "--out", "d"]))
    assert _keep(p.parse_args([*base, "--out", "d", "--no-records"]))
    # Nothing a plain run prints reads the rows: held, they would cost ~10 %.
    assert not _keep(p.parse_args(base))
    assert capsys.readouterr().err == ""
    assert not _keep(p.parse_args([*base, "--bin-ms", "10"]))
    assert "without --out it has no effect" in capsys.readouterr().err


def _held_imports(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Make the writer's imports wait until the returned event is set."""
    from flashsched import records_stream

    release = threading.Event()
    imports = records_stream.start_imports

    def slow_imports() -> None:
        assert release.wait(10)
        imports().result()

    monkeypatch.setattr(records_stream, "start_imports", lambda: records_stream._Job(slow_imports))
    return release


def test_the_first_group_does_not_wait_for_the_imports(
    tmp_path: Path, whole: RunResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Until pyarrow is imported, the first group's job waits on the writer
    # thread, not the simulation's: a drain returns with the imports still
    # running, and the file is whole once they end.
    release = _held_imports(monkeypatch)
    stream = RecordStream(tmp_path / "r.parquet", rows_per_group=3000)
    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, records_held=6000)
    while stream.rows == 0:
        assert not sim.advance(500)
        stream.maybe_drain(sim)
    assert not release.is_set(), "the drain did not wait for the imports"
    release.set()
    while not sim.advance(500):
        stream.maybe_drain(sim)
    stream.drain(sim)
    stream.close()
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), whole.requests)


def test_follow_runs_on_while_the_writer_has_the_last_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: RunResult
) -> None:
    # The first group waits for an import that ends only when the second
    # drain begins: `follow` must reach it by running the core on to two
    # groups' worth (not wait at one), and the file is still whole.
    release = _held_imports(monkeypatch)
    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, records_held=9000)
    drains = []

    class Watched:
        def advance_until(self, n: int) -> bool:
            return bool(sim.advance_until(n))

        def progress(self) -> tuple[int, int]:
            return sim.progress()

        def take_records(self) -> dict:
            drains.append(sim.progress()[0])
            if len(drains) == 2:
                release.set()
            return sim.take_records()

    stream = RecordStream(tmp_path / "r.parquet", rows_per_group=3000)
    stream.follow(Watched())  # type: ignore[arg-type]
    stream.close()
    assert drains[0] >= 3000 and drains[1] - drains[0] >= 2 * 3000, drains
    f = pq.ParquetFile(tmp_path / "r.parquet")
    assert f.metadata.row_group(1).num_rows >= 6000
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "r.parquet"), whole.requests)


def test_imports_that_fail_are_raised_not_lost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from flashsched import records_stream

    def missing() -> None:
        raise ImportError("no pyarrow here")

    monkeypatch.setattr(records_stream, "start_imports", lambda: records_stream._Job(missing))
    stream = RecordStream(tmp_path / "r.parquet", rows_per_group=3000)
    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, records_held=6000)
    # Raised on the simulation's thread at the drain after the first group.
    with pytest.raises(ImportError, match="no pyarrow here"):
        while not sim.advance(500):
            stream.maybe_drain(sim)
    assert stream.rows >= 2 * 3000, "two groups were handed over"
    stream.abandon()
    assert list(tmp_path.iterdir()) == []


def test_advance_until_stops_at_a_completion_count() -> None:
    # Stops once that many requests completed (within a check interval of
    # 4096 steps), runs to the end when asked past it, and the run is the
    # run `advance` or `run` gives.
    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, keep_records=False)
    assert not sim.advance_until(5000)
    assert 5000 <= sim.progress()[0] < 5000 + 4096
    assert not sim.advance_until(0, max_steps=10), "max_steps bounds a call"
    assert sim.advance_until(10**9)
    assert sim.progress()[0] == 20_000
    whole = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, keep_records=False)
    whole.run()
    assert sim.summary_json(stable=True) == whole.summary_json(stable=True)


def test_taken_rows_never_change_and_their_buffers_are_recorded_into_once_dropped(
    whole: RunResult,
) -> None:
    # `take_records` hands the core the buffers of an earlier take to record
    # into, but only once nothing holds them: rows still held never change,
    # and those dropped have their memory used again (no fresh pages per
    # group).
    import numpy as np

    sim = api.simulation(synthetic=WORKLOAD, overrides=SET, seed=3, records_held=12_000)

    def take(completed: int) -> dict[str, np.ndarray]:
        sim.advance_until(completed)
        return {k: np.asarray(v) for k, v in sim.take_records().items()}

    def address(rows: dict[str, np.ndarray]) -> int:
        return int(rows["arrival_ns"].__array_interface__["data"][0])

    a = take(2000)
    pieces = [{k: v.copy() for k, v in a.items()}]
    a_at = address(a)
    del a
    b = take(4000)
    b_kept = {k: v.copy() for k, v in b.items()}
    c = take(6000)
    assert address(c) == a_at, "the rows after a dropped take go into its buffers"
    pieces += [b_kept, {k: v.copy() for k, v in c.items()}]
    assert sim.advance_until(10**9)
    pieces.append({k: np.asarray(v).copy() for k, v in sim.take_records().items()})
    for k, v in b.items():
        np.testing.assert_array_equal(v, b_kept[k], err_msg=f"held rows of {k} changed")
    rows = pd.DataFrame({k: np.concatenate([p[k] for p in pieces]) for k in b})
    mine = RunResult.from_sim(sim, 1000.0)
    assert len(rows) == 20_000
    for k in ("arrival_ns", "complete_ns", "offset", "size"):
        np.testing.assert_array_equal(rows[k].to_numpy(), whole.requests[k].to_numpy())
    assert mine.summary["latency_us"] == whole.summary["latency_us"]


def test_streamed_series_keep_the_per_second_p99(tmp_path: Path) -> None:
    """The core's per-second series of a run whose rows left in pieces is
    that of a run that kept them, p99 included: the rows' latencies stay in
    the core until no later row can complete in their second (it was 0 in
    every second of a streamed run). Through `run(records_to=...)` too, and
    SSDsim's clock, which dates buffered requests back to their arrival."""
    workload = "read=0.6,bs=4k-32k,iops=4000,n=20000"
    sim = api.simulation(synthetic=workload, overrides=SET, seed=3, records_held=2000)
    stream = RecordStream(tmp_path / "r.parquet", rows_per_group=1000)
    while not sim.advance(500):
        stream.maybe_drain(sim)
    stream.drain(sim)
    stream.close()
    res = RunResult.from_sim(sim, 1000.0, stream)
    whole = flashsched.run(synthetic=workload, overrides=SET, seed=3)
    ts = res.timeseries
    assert len(ts) >= 5 and (ts["p99_latency_us"] > 0).all()
    pd.testing.assert_frame_equal(ts, whole.timeseries)
    kw = {"synthetic": "read=0.3,bs=4k-64k,iops=9000,n=20000", "device": "ssdsim-default"}
    streamed = flashsched.run(**kw, records_to=tmp_path / "s.parquet").timeseries
    pd.testing.assert_frame_equal(streamed, flashsched.run(**kw).timeseries)
    assert (streamed["p99_latency_us"] > 0).all()


@pytest.mark.parametrize("bin_ms", [50.0, 1000.0])
def test_series_summed_as_rows_pass_take_rows_dated_back(tmp_path: Path, bin_ms: float) -> None:
    """SSDsim's clock dates a request served from DRAM back to its arrival,
    so rows do not leave in completion order (here up to seconds behind).
    A bin is summed only once no later row can fall in it (the core's
    completion floor); summed when the next rows reached it, the first
    second lost 2,939 of its 2,940 rows."""
    kw = {"synthetic": "read=0.3,bs=4k-64k,iops=9000,n=20000", "device": "ssdsim-default"}
    sim = api.simulation(**kw, seed=3, records_held=2000)
    stream = RecordStream(tmp_path / "r.parquet", rows_per_group=1000, bin_ms=bin_ms)
    while not sim.advance(300):
        stream.maybe_drain(sim)
    stream.drain(sim)
    stream.close()
    res = RunResult.from_sim(sim, bin_ms, stream)
    whole = flashsched.run(**kw, seed=3)
    complete = whole.requests["complete_ns"].to_numpy()
    assert (complete[1:] < complete[:-1]).any(), "rows in completion order: nothing tested"
    pd.testing.assert_frame_equal(res.timeseries, whole.series(bin_ms))
