"""The Python API: ``flashsched.run`` / ``flashsched.simulation`` and RunResult."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import flashsched
import numpy as np
import pandas as pd
import pytest

DEVICE = "ssdsim-default"
SMALL = "read=0.7,bs=4k-16k,iops=3000,n=4000"


# --- summary ---------------------------------------------------------------


def test_summary_has_documented_keys(small_result, helpers):
    s = small_result.summary
    helpers.check_summary_schema(s)
    assert s["requests"] == 4000
    assert s["latency_us"]["count"] == 4000
    assert s["read_latency_us"]["count"] == s["reads"]
    assert s["write_latency_us"]["count"] == s["writes"]
    # 70 % reads, give or take sampling noise
    assert 0.65 < s["reads"] / s["requests"] < 0.75
    assert s["device"] == DEVICE
    assert s["seed"] == 7


def test_summary_is_consistent_with_records(small_result, helpers):
    s = small_result.summary
    df = small_result.requests
    helpers.check_requests_frame(df, s)
    for key, sub in (
        ("latency_us", df),
        ("read_latency_us", df[df["op"] == "read"]),
        ("write_latency_us", df[df["op"] == "write"]),
    ):
        lat = s[key]
        ns = (sub["complete_ns"] - sub["arrival_ns"]).to_numpy(np.int64)
        assert lat["count"] == len(ns)
        assert lat["mean"] == pytest.approx(ns.mean() / 1000.0, rel=1e-12)
        assert lat["max"] == ns.max() / 1000.0
        # percentiles: nearest rank, within the histogram's 0.1 % resolution
        for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("p999", 0.999)):
            assert lat[name] == pytest.approx(helpers.nearest_rank(ns, q), rel=1.5e-3), name
    assert small_result.latency("read") == s["read_latency_us"]
    assert small_result.latency() == s["latency_us"]


def test_throughput_figures(small_result):
    s = small_result.summary
    df = small_result.requests
    sim_s = s["simulated_s"]
    assert sim_s == pytest.approx(df["complete_ns"].max() / 1e9)
    assert s["iops"] == pytest.approx(s["requests"] / sim_s)
    total_bytes = s["bytes_read"] + s["bytes_written"]
    assert s["bandwidth_mib_s"] == pytest.approx(total_bytes / 2**20 / sim_s)
    # the synthetic workload asked for ~3000 IOPS and the device keeps up
    assert 2700 < s["iops"] < 3300
    assert s["events"] > s["requests"]
    assert s["wall_s"] > 0


def test_requests_frame_columns(small_result):
    df = small_result.requests
    assert len(df) == 4000
    for col in ("arrival_ns", "dispatch_ns", "complete_ns", "offset", "size", "stream"):
        assert pd.api.types.is_unsigned_integer_dtype(df[col]), col
    assert list(df["op"].cat.categories)[:2] == ["read", "write"]
    # bs=4k-16k: sizes are 4 KiB multiples within the range
    assert df["size"].min() >= 4096
    assert df["size"].max() <= 16384
    assert (df["size"] % 4096 == 0).all()
    # a fresh device with no queueing backlog has positive flash latencies
    assert (df["latency_us"] > 0).all()


def test_records_are_shared_with_the_core_not_copied():
    sim = flashsched.simulation(synthetic="read=0.5,bs=4k,n=500", device=DEVICE)
    sim.run()
    cols = sim.records()
    arr = np.asarray(cols["complete_ns"])
    # A read-only view whose base is the core's column: no copy was made.
    assert arr.base is cols["complete_ns"] and not arr.flags.writeable
    assert len(arr) == len(cols["op"]) == 500
    assert arr[-1] == cols["complete_ns"][-1] and (np.diff(arr.astype(np.int64)) >= 0).all()
    with pytest.raises(IndexError):
        cols["op"][500]
    # A later records() call hands out the same contents.
    assert np.array_equal(np.asarray(sim.records()["complete_ns"]), arr)
    # The DataFrame's integer columns are views of those buffers.
    res = flashsched.RunResult.from_sim(sim)
    df = res.requests
    core_offsets = np.asarray(res._records["offset"])
    assert np.shares_memory(df["offset"].to_numpy(), core_offsets)
    assert len(df) == 500 and list(df.columns)[3] == "op"


def test_run_result_pickles_with_its_records(small_result):
    back = pickle.loads(pickle.dumps(small_result))
    pd.testing.assert_frame_equal(back.requests, small_result.requests)
    assert np.array_equal(back.erase_counts, small_result.erase_counts)
    # Unpickling checks what it is given.
    with pytest.raises(ValueError, match="<u8"):
        flashsched._core.Column._from_bytes("<u8", b"12345")
    with pytest.raises(ValueError, match="<f8"):
        flashsched._core.Column._from_bytes("<f8", b"1234567")
    with pytest.raises(ValueError, match="<i2"):
        flashsched._core.Column._from_bytes("<i2", b"")


def test_latency_columns_are_computed_in_the_core_exactly(small_result):
    rec = {k: np.asarray(v) for k, v in small_result._records.items()}
    df = small_result.requests
    for col, start, end in (
        ("latency_us", "arrival_ns", "complete_ns"),
        ("wait_us", "arrival_ns", "dispatch_ns"),
    ):
        # The same float64 values numpy's formula gives, bit for bit.
        ref = np.subtract(rec[end], rec[start], dtype=np.float64) * 1e-3
        assert df[col].dtype == np.float64 and np.array_equal(df[col].to_numpy(), ref), col
    c = flashsched._core.us_since(
        small_result._records["complete_ns"], small_result._records["arrival_ns"]
    )
    assert c[0] == df["latency_us"].iloc[0] and isinstance(c[-1], float)
    assert np.array_equal(np.asarray(pickle.loads(pickle.dumps(c))), np.asarray(c))
    with pytest.raises(ValueError, match="uint64"):
        flashsched._core.us_since(
            small_result._records["size"], small_result._records["arrival_ns"]
        )


def test_timeseries_sums_to_request_count(small_result):
    s = small_result.summary
    ts = small_result.timeseries
    df = small_result.requests
    assert int(ts["ios"].sum()) == s["requests"]
    assert int(ts["reads"].sum()) == s["reads"]
    assert int(ts["writes"].sum()) == s["writes"]
    assert int(ts["bytes"].sum()) == s["bytes_read"] + s["bytes_written"]
    assert (ts["iops"] == ts["ios"]).all()
    np.testing.assert_allclose(ts["mib_s"], ts["bytes"] / 2**20)
    # binned by completion second
    sec = (df["complete_ns"] // 1_000_000_000).astype(int)
    per_sec = sec.value_counts().sort_index()
    assert list(ts["time_s"]) == list(range(len(ts)))
    assert len(ts) == sec.max() + 1 >= 2
    assert per_sec.reindex(ts["time_s"], fill_value=0).tolist() == ts["ios"].tolist()
    mean_by_sec = df.groupby(sec)["latency_us"].mean()
    np.testing.assert_allclose(ts.set_index("time_s")["mean_latency_us"], mean_by_sec)


def test_save_writes_all_files(small_result, tmp_path):
    out = small_result.save(tmp_path / "run1")
    assert out == tmp_path / "run1"
    for name in ("summary.json", "config.toml", "timeseries.csv", "requests.parquet"):
        assert (out / name).is_file(), name
    assert json.loads((out / "summary.json").read_text()) == small_result.summary
    assert (out / "config.toml").read_text() == small_result.config_toml
    ts = pd.read_csv(out / "timeseries.csv")
    assert int(ts["ios"].sum()) == small_result.summary["requests"]
    back = pd.read_parquet(out / "requests.parquet")
    assert len(back) == small_result.summary["requests"]
    orig = small_result.requests
    assert list(back.columns) == list(orig.columns)
    np.testing.assert_array_equal(back["complete_ns"], orig["complete_ns"])
    np.testing.assert_allclose(back["latency_us"], orig["latency_us"])
    assert back["op"].astype(str).tolist() == orig["op"].astype(str).tolist()


def test_no_records_means_no_parquet(tmp_path):
    res = flashsched.run(
        synthetic="read=0.5,bs=4k,iops=2000,n=300", device=DEVICE, keep_records=False
    )
    assert res.summary["requests"] == 300
    assert len(res.requests) == 0
    assert int(res.timeseries["ios"].sum()) == 300
    out = res.save(tmp_path / "nr")
    assert (out / "summary.json").is_file()
    assert not (out / "requests.parquet").exists()


# --- determinism and parameters -----------------------------------------


def _stable(seed: int, workload: str = "read=0.6,bs=4k-16k,iops=4000,n=2000") -> str:
    sim = flashsched.simulation(synthetic=workload, device=DEVICE, seed=seed)
    sim.run()
    assert sim.is_finished()
    return sim.summary_json(stable=True)


def test_same_seed_same_summary():
    a, b = _stable(11), _stable(11)
    assert a == b
    s = json.loads(a)
    assert s["wall_s"] == 0  # stable mode zeroes wall-clock fields
    assert s["seed"] == 11


def test_different_seed_different_summary():
    a, b = json.loads(_stable(11)), json.loads(_stable(12))
    assert a["seed"] != b["seed"]
    del a["seed"], b["seed"]
    assert a["latency_us"] != b["latency_us"]


def test_same_seed_same_records():
    runs = [
        flashsched.run(synthetic="read=0.6,bs=4k,iops=4000,n=1000", device=DEVICE, seed=5)
        for _ in range(2)
    ]
    pd.testing.assert_frame_equal(runs[0].requests, runs[1].requests)


def test_chunked_advance_matches_run():
    spec = "read=0.7,bs=4k-16k,iops=5000,n=3000"
    whole = flashsched.simulation(synthetic=spec, device=DEVICE, seed=3)
    whole.run()
    stepped = flashsched.simulation(synthetic=spec, device=DEVICE, seed=3)
    assert stepped.progress() == (0, 3000, 0)
    assert not stepped.is_finished()
    chunks = 0
    while not stepped.advance(500):
        chunks += 1
        done, total, now = stepped.progress()
        assert 0 <= done <= total == 3000
    assert chunks > 1
    assert stepped.is_finished()
    assert stepped.progress()[0] == 3000
    assert stepped.summary_json(stable=True) == whole.summary_json(stable=True)


def test_progress_bar_path_gives_same_result(capsys):
    spec = "read=0.7,bs=4k,iops=5000,n=1500"
    plain = flashsched.run(synthetic=spec, device=DEVICE, seed=9, progress=False)
    barred = flashsched.run(synthetic=spec, device=DEVICE, seed=9, progress=True)
    assert "req" in capsys.readouterr().err  # tqdm wrote its bar to stderr
    assert barred.summary["latency_us"] == plain.summary["latency_us"]
    assert barred.summary["requests"] == 1500


def test_scheduler_and_queue_depth_arguments_land_in_summary_and_config(toml_loads):
    host, dev = flashsched.host_schedulers()[0], flashsched.device_schedulers()[0]
    res = flashsched.run(
        synthetic="read=0.7,bs=4k,iops=2000,n=200",
        device=DEVICE,
        host_sched=host,
        device_sched=dev,
        queue_depth=3,
    )
    assert res.summary["host_sched"] == host
    assert res.summary["device_sched"] == dev
    cfg = toml_loads(res.config_toml)
    assert cfg["host"]["queue_depth"] == 3
    assert cfg["host"]["scheduler"] == host
    assert cfg["controller"]["scheduler"] == dev


def _max_in_flight(df: pd.DataFrame) -> int:
    """Largest number of requests between dispatch and completion at once."""
    times = np.concatenate([df["dispatch_ns"].to_numpy(), df["complete_ns"].to_numpy()])
    deltas = np.concatenate([np.ones(len(df), int), -np.ones(len(df), int)])
    order = np.lexsort((deltas, times))  # completions before dispatches at equal times
    return int(np.cumsum(deltas[order]).max())


@pytest.mark.parametrize("qd", [1, 4])
def test_queue_depth_bounds_outstanding_requests(qd):
    # 20k IOPS of 4-16 KiB saturates ssdsim-default's two 40 MB/s buses.
    # Back merges would let one device slot carry several user requests.
    # SSDsim's clock (host.buffered_latency = "from-dispatch") reports a
    # request its buffer served as dispatched on arrival, so the rows show
    # the real dispatch times only with it off.
    res = flashsched.run(
        synthetic="read=0.7,bs=4k-16k,iops=20000,n=1500",
        device=DEVICE,
        queue_depth=qd,
        overrides=["host.max_merge_kib=0", "host.buffered_latency=from-arrival"],
    )
    df = res.requests
    assert _max_in_flight(df) == qd
    assert (df["wait_us"] > 0).any()


def test_queue_depth_changes_latency():
    spec = "read=0.7,bs=4k-16k,iops=20000,n=1500"
    qd1 = flashsched.run(synthetic=spec, device=DEVICE, queue_depth=1).summary
    qd32 = flashsched.run(synthetic=spec, device=DEVICE, queue_depth=32).summary
    assert qd1["simulated_s"] > qd32["simulated_s"]
    assert qd1["iops"] < qd32["iops"]


def test_overrides_change_timing():
    spec = "read=1.0,bs=2k,iops=500,n=200"  # one page per read, little contention
    base = flashsched.run(synthetic=spec, device=DEVICE).requests["latency_us"]
    res = flashsched.run(synthetic=spec, device=DEVICE, overrides=["timing.read_us=120"])
    slow = res.requests["latency_us"]
    # an uncontended read is its 7 t_WC command cycles (0.175 us), cell time
    # and one 2 KiB transfer at 40 MB/s (51.2 us)
    assert base.min() == pytest.approx(0.175 + 20 + 51.2)
    assert slow.min() == pytest.approx(0.175 + 120 + 51.2)
    assert (slow.median() - base.median()) == pytest.approx(100.0)


# --- configs ---------------------------------------------------------------


def test_presets_and_listings():
    names = [n for n, _ in flashsched.presets()]
    assert {"default", "mqsim-default", "ssdsim-default", "vios-128g"} <= set(names)
    assert all(desc for _, desc in flashsched.presets())
    fmts = [n for n, _ in flashsched.formats()]
    assert {"msr", "spc", "ascii-ns", "ascii-ms", "ssdsim", "blkparse", "fiu"} <= set(fmts)
    assert "noop" in flashsched.host_schedulers()
    assert "fifo" in flashsched.device_schedulers()
    assert flashsched.__version__


@pytest.mark.parametrize("preset", ["default", "mqsim-default", "ssdsim-default", "vios-128g"])
def test_every_preset_loads(preset, toml_loads):
    cfg = toml_loads(flashsched.load_config(preset))
    assert cfg["preset"] == preset
    for section in ("geometry", "timing", "ftl", "host", "controller"):
        assert section in cfg


def test_load_config_reflects_overrides(toml_loads):
    base = toml_loads(flashsched.load_config("mqsim-default"))
    over = toml_loads(
        flashsched.load_config(
            "mqsim-default",
            ["timing.read_us=50", "host.queue_depth=7", "ftl.gc_policy=cost-benefit"],
        )
    )
    assert over["timing"]["read_us"] == 50.0
    assert over["host"]["queue_depth"] == 7
    assert over["ftl"]["gc_policy"] == "cost-benefit"
    assert base["timing"]["read_us"] != 50.0
    # everything else untouched
    for sec in base:
        if isinstance(base[sec], dict):
            for k, v in base[sec].items():
                if (sec, k) not in {
                    ("timing", "read_us"),
                    ("host", "queue_depth"),
                    ("ftl", "gc_policy"),
                }:
                    assert over[sec][k] == v, (sec, k)


def test_device_toml_file_round_trips(tmp_path, toml_loads):
    text = flashsched.load_config(DEVICE, ["timing.read_us=33"])
    path = tmp_path / "dev.toml"
    path.write_text(text)
    assert flashsched.load_config(str(path)) == text
    res = flashsched.run(synthetic="read=1.0,bs=2k,iops=500,n=50", device=path)
    assert toml_loads(res.config_toml)["timing"]["read_us"] == 33.0


# --- garbage collection ---------------------------------------------------


def test_gc_on_preconditioned_device():
    sim = flashsched.simulation(
        synthetic="read=0.0,bs=4k,iops=5000,n=15000",
        device=DEVICE,
        overrides=["ftl.precondition_fill=0.9"],
        keep_records=False,
    )
    sim.run()
    sim.check_invariants()
    s = json.loads(sim.summary_json())
    gc = s["gc"]
    assert gc["invocations"] > 0 and gc["erases"] > 0 and gc["pages_moved"] > 0
    assert sum(sim.erase_counts()) == gc["erases"]
    user_pages = s["bytes_written"] // 2048  # 2 KiB pages, 4 KiB-aligned writes
    # The write buffer absorbs rewrites and still holds some pages at the
    # end: user programs are at most the pages written.
    user_programs = s["flash"]["programs"] - gc["pages_moved"]
    assert 0 < user_programs <= user_pages
    assert s["waf"] == pytest.approx((user_programs + gc["pages_moved"]) / user_programs)
    assert s["waf"] > 1.0
    assert s["precondition"]["fill"] == 0.9


def test_fresh_device_has_no_gc(small_result):
    gc = small_result.summary["gc"]
    assert gc == {"invocations": 0, "pages_moved": 0, "erases": 0}
    assert small_result.summary["waf"] == 1.0


# --- Amphibian Fig. 5 worked example ----------------------------------------


def _fig5(trace: Path, overrides: list[str], **kw) -> flashsched.RunResult:
    return flashsched.run(
        trace=trace, format="ascii-ns", device="default", overrides=overrides, **kw
    )


def test_amphibian_fig5_worked_example(fig5_trace, helpers):
    res = _fig5(fig5_trace, helpers.FIG5_OVERRIDES, queue_depth=1)
    df = res.requests.sort_values("complete_ns")
    assert df["complete_ns"].tolist() == [200_000, 250_000, 300_000, 350_000]
    assert df["arrival_ns"].tolist() == [0, 0, 0, 0]
    # FIFO with one slot: R1 (16 KiB = 4 pages x 50 us) first, then R2..R4 in trace order
    assert df["size"].tolist() == [16384, 4096, 4096, 4096]
    assert df["offset"].tolist() == [0, 20000 * 512, 40000 * 512, 60000 * 512]
    assert df["dispatch_ns"].tolist() == [0, 200_000, 250_000, 300_000]
    lat = res.summary["latency_us"]
    assert lat["mean"] == 275.0
    assert lat["max"] == 350.0
    assert lat["count"] == 4
    assert res.summary["reads"] == 4
    assert res.summary["read_latency_us"]["mean"] == 275.0
    assert res.summary["simulated_s"] == pytest.approx(350e-6)


def test_fig5_without_queue_limit_dispatches_everything_at_once(fig5_trace, helpers):
    res = _fig5(fig5_trace, helpers.FIG5_OVERRIDES)  # default queue depth 128
    df = res.requests
    assert (df["dispatch_ns"] == 0).all()
    # one plane still serialises the 7 page reads: the last ends at 350 us
    assert df["complete_ns"].max() == 350_000
