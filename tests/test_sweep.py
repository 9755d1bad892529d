"""Sweeps: spec validation, grid expansion, content keys, resume, backends."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import flashsched
import pandas as pd
import pytest

sw = importlib.import_module("flashsched.sweep")  # the package (flashsched.sweep is the function)

DEVICE = "ssdsim-default"


def small_spec(**grid: list) -> dict:
    """A tiny spec: two synthetic workloads on the 4 GiB ssdsim preset."""
    return {
        "name": "t",
        "base": {"device": DEVICE, "set": ["ftl.precondition_fill=0.5"]},
        "workloads": {
            "r": {"synthetic": "read=1,bs=4k,iops=2000,n=300"},
            "w": {"synthetic": "read=0,bs=4k,iops=2000,n=300"},
        },
        "grid": grid or {"queue_depth": [1, 8], "seed": [1, 2]},
        "output": {"timeseries": False},
    }


def traces_dir() -> Path:
    """``$FLASHSCHED_TRACES`` or ``../shared/traces`` (from the repo or its worktree dir)."""
    env = os.environ.get("FLASHSCHED_TRACES")
    here = Path(__file__).resolve().parents
    cands = [Path(env)] if env else [here[2] / "shared" / "traces", here[3] / "shared" / "traces"]
    for d in cands:
        if d.is_dir():
            return d
    pytest.skip(f"sample traces not found at {cands[0]} (set FLASHSCHED_TRACES)")


# --- expansion ---------------------------------------------------------------


def test_grid_is_the_cartesian_product_of_axes_and_workloads():
    spec = sw.parse_spec(small_spec(queue_depth=[1, 8, 32], seed=[1, 2]))
    runs = spec.expand()
    assert len(runs) == 2 * 3 * 2
    combos = {(r.workload.name, r.queue_depth, r.seed) for r in runs}
    assert len(combos) == 12
    assert all(r.overrides[0] == ("ftl.precondition_fill", "0.5") for r in runs)


def test_points_are_crossed_with_the_grid_and_override_it():
    d = small_spec(seed=[1, 2])
    d["points"] = [
        {"queue_depth": 1, "label": "qd1"},
        {"queue_depth": 4, "ftl.gc_policy": "fifo", "workload": "w"},
    ]
    runs = sw.parse_spec(d).expand()
    # point 1 applies to both workloads, point 2 pins workload w: (2 + 1) x 2 seeds
    assert len(runs) == 6
    fifo = [r for r in runs if ("ftl.gc_policy", "fifo") in r.overrides]
    assert {r.workload.name for r in fifo} == {"w"} and {r.queue_depth for r in fifo} == {4}
    assert {r.label for r in runs if r.queue_depth == 1} == {"qd1"}


def test_override_axis_reaches_the_resolved_config():
    runs = sw.plan(small_spec(**{"ftl.overprovisioning": [0.1, 0.3]}))
    assert len(runs) == 4
    tomls = {r.device_toml for r in runs}
    assert any("overprovisioning = 0.1" in t for t in tomls)
    assert any("overprovisioning = 0.3" in t for t in tomls)


# --- strict validation ---------------------------------------------------------


@pytest.mark.parametrize(
    ("mutate", "needle"),
    [
        (lambda d: d.update(nmae="x"), "unknown key 'nmae'"),
        (lambda d: d["grid"].update(seeds=[1]), "grid: unknown key 'seeds'"),
        (lambda d: d["base"].update(devcie="x"), "base: unknown key 'devcie'"),
        (lambda d: d["workloads"]["r"].update(intensty=2), "workloads.r: unknown key 'intensty'"),
        (lambda d: d.update(output={"cdfs": True}), "output: unknown key 'cdfs'"),
        (lambda d: d["grid"].update(queue_depth=[1.5]), "grid.queue_depth: expected an integer"),
        (lambda d: d["grid"].update(workload=["nope"]), "unknown workload 'nope'"),
        (lambda d: d["workloads"].update(x={"trace": "a", "synthetic": "b"}), "exactly one"),
        (lambda d: d["grid"].update(seed=[]), "grid.seed: expected a non-empty list"),
        (lambda d: d.pop("name"), "'name'"),
        (lambda d: d["workloads"]["r"].update(skip_bad=True), "apply to traces only"),
        (
            lambda d: d["workloads"].update(t={"trace": "a", "time_order": "shuffle"}),
            "workloads.t.time_order: expected one of auto, clamp, reject, sort",
        ),
        (lambda d: d.update(output={"check": "yes"}), "output.check"),
    ],
)
def test_spec_errors_name_the_key(mutate, needle):
    d = small_spec()
    mutate(d)
    with pytest.raises(flashsched.ConfigError, match=needle.replace("(", r"\(")):
        sw.parse_spec(d)


def test_unknown_device_key_is_reported_before_running(tmp_path):
    with pytest.raises(flashsched.ConfigError, match="ftl.gc_polcy"):
        sw.sweep(small_spec(**{"ftl.gc_polcy": ["greedy"]}), out=tmp_path, workers=1)
    assert not (tmp_path / "runs").exists()


def test_missing_trace_is_reported_with_its_path(tmp_path):
    d = small_spec()
    d["workloads"] = {"gone": {"trace": "no/such.trace"}}
    with pytest.raises(FileNotFoundError, match="no/such.trace"):
        sw.plan(d)


def test_toml_spec_file_and_example(tmp_path):
    example = Path(__file__).resolve().parents[1] / "experiments" / "example-sweep.toml"
    spec = sw.load_spec(example)
    assert len(spec.expand()) == 48
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[workloads.a]\nsynthetic = "n=10"\n[grid]\nqueue_dept = [1]\n')
    with pytest.raises(flashsched.ConfigError, match="queue_dept"):
        sw.load_spec(bad)


# --- keys --------------------------------------------------------------------


def test_key_depends_on_config_seed_and_workload_not_label():
    a = sw.plan(small_spec(seed=[1]))
    b = sw.plan({**small_spec(seed=[1]), "points": [{"label": "renamed"}]})
    assert [r.key for r in a] == [r.key for r in b]
    c = sw.plan(small_spec(seed=[2]))
    assert not {r.key for r in a} & {r.key for r in c}
    d = sw.plan(small_spec(seed=[1], **{"timing.read_us": [21]}))
    assert not {r.key for r in a} & {r.key for r in d}


def test_trace_key_follows_contents_not_path(tmp_path):
    line = "0 0 0 8 1\n1000 0 64 8 0\n"
    for name in ("a.trace", "b.trace"):
        (tmp_path / name).write_text(line)
    spec = {
        "name": "k",
        "base": {"device": DEVICE},
        "workloads": {
            "a": {"trace": str(tmp_path / "a.trace")},
            "b": {"trace": str(tmp_path / "b.trace")},
        },
    }
    keys = [r.key for r in sw.plan(spec)]
    assert len(keys) == 1  # identical contents: one run
    (tmp_path / "b.trace").write_text(line + "2000 0 128 8 1\n")
    assert len({r.key for r in sw.plan(spec)}) == 2


# --- running, resume ---------------------------------------------------------


def test_sweep_writes_table_and_json_and_matches_a_direct_run(tmp_path):
    df = sw.sweep(small_spec(), out=tmp_path, workers=1)
    assert len(df) == 8 and df["key"].is_unique
    assert {"latency_us.p99", "gc.invocations", "waf", "queue_depth", "workload"} <= set(df)
    assert set(df["workload"]) == {"r", "w"}
    table = pd.read_parquet(tmp_path / "results.parquet")
    assert len(table) == 8
    for key in df["key"]:
        rec = json.loads((tmp_path / "runs" / f"{key}.json").read_text())
        assert rec["key"] == key and "latency_cdf" in rec
    row = df[(df["workload"] == "r") & (df["queue_depth"] == 8) & (df["seed"] == 2)].iloc[0]
    direct = flashsched.run(
        synthetic="read=1,bs=4k,iops=2000,n=300",
        device=DEVICE,
        overrides=["ftl.precondition_fill=0.5"],
        queue_depth=8,
        seed=2,
    )
    assert row["latency_us.mean"] == direct.summary["latency_us"]["mean"]
    assert row["requests"] == 300


def test_resume_runs_only_the_missing_runs(tmp_path):
    half = sw.sweep(small_spec(queue_depth=[1], seed=[1, 2]), out=tmp_path, workers=1)
    assert len(half.attrs["executed"]) == 4
    mtimes = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "runs").glob("*.json")}
    full = sw.sweep(small_spec(queue_depth=[1, 8], seed=[1, 2]), out=tmp_path, workers=2)
    assert len(full) == 8 and full["key"].is_unique
    assert set(full.attrs["skipped"]) == set(half["key"])
    assert len(full.attrs["executed"]) == 4
    assert not set(full.attrs["executed"]) & set(half["key"])
    for name, m in mtimes.items():  # finished runs were not rewritten
        assert (tmp_path / "runs" / name).stat().st_mtime_ns == m
    again = sw.sweep(small_spec(queue_depth=[1, 8], seed=[1, 2]), out=tmp_path, workers=2)
    assert again.attrs["executed"] == [] and len(again) == 8


def test_killed_sweep_resumes_without_loss_or_duplicates(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "kill"\n[base]\ndevice = "ssdsim-default"\n'
        '[workloads.w]\nsynthetic = "read=0.5,bs=4k-16k,iops=20000,n=150000"\n'
        "[grid]\nseed = [1, 2, 3, 4, 5, 6, 7, 8]\n[output]\ncdf = false\ntimeseries = false\n"
    )
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "flashsched",
        "sweep",
        str(spec),
        "--out",
        str(out),
        "--workers",
        "1",
        "--no-progress",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and len(list((out / "runs").glob("*.json"))) < 2:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = {p.stem for p in (out / "runs").glob("*.json")}
    assert 2 <= len(finished) < 8, "the sweep finished before it could be killed"
    for p in (out / "runs").glob("*.json"):
        json.loads(p.read_text())  # every file that exists is complete
    df = sw.sweep(spec, out=out, workers=2)
    assert len(df) == 8 and df["key"].is_unique
    assert set(df.attrs["skipped"]) == finished
    assert len(df.attrs["executed"]) == 8 - len(finished)
    assert sorted(df["seed"]) == list(range(1, 9))


def test_failed_run_is_reported_and_others_kept(tmp_path):
    d = small_spec(seed=[1])
    d["workloads"]["bad"] = {"trace": str(tmp_path / "bad.trace")}
    (tmp_path / "bad.trace").write_text("0 0 0 8 1\nnot a trace line\n")
    with pytest.raises(flashsched.SimulationError, match="1 of 3 runs failed"):
        sw.sweep(d, out=tmp_path / "o", workers=1)
    assert len(sw.load(tmp_path / "o")) == 2


def test_cli_sweep_and_dry_run(run_cli_here, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "cli"\n[base]\ndevice = "ssdsim-default"\n'
        '[workloads.w]\nsynthetic = "read=1,bs=4k,iops=1000,n=100"\n'
        "[grid]\nqueue_depth = [1, 2]\n"
    )
    p = run_cli_here("sweep", str(spec), "--dry-run")
    assert p.returncode == 0 and "2 runs" in p.stderr
    p = run_cli_here("sweep", str(spec), "--out", str(tmp_path / "o"), "--workers", "1")
    assert p.returncode == 0, p.stderr
    assert len(pd.read_parquet(tmp_path / "o" / "results.parquet")) == 2
    spec.write_text(spec.read_text() + "bogus = 1\n")
    p = run_cli_here("sweep", str(spec))
    assert p.returncode == 2 and "unknown key 'bogus'" in p.stderr


@pytest.fixture
def run_cli_here():
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "flashsched", *args], capture_output=True, text=True, timeout=120
        )

    return run


def test_sample_trace_sweep(tmp_path):
    d = traces_dir()
    spec = {
        "name": "tr",
        "base": {"device": DEVICE},
        "workloads": {"hm": {"trace": "msr/hm_0.first1000.csv", "intensity": 10}},
        "grid": {"queue_depth": [1, 16]},
    }
    df = sw.sweep(sw.as_spec(spec, traces=d), out=tmp_path, workers=1)
    assert list(df["requests"]) == [1000, 1000]
    assert (
        df.loc[df["queue_depth"] == 1, "latency_us.mean"].iloc[0]
        >= df.loc[df["queue_depth"] == 16, "latency_us.mean"].iloc[0]
    )


def test_trace_policies_and_check_mode_reach_the_runs(tmp_path):
    d = traces_dir()
    blk = "blkparse/ycsb-f2fs.blkparse.txt"
    spec = {
        "name": "pol",
        "base": {"device": DEVICE},
        "workloads": {
            "clamp": {"trace": blk, "limit": 400, "time_order": "clamp"},
            "sort": {"trace": blk, "limit": 400, "time_order": "sort", "skip_bad": True},
        },
        "output": {"check": True, "cdf": False, "timeseries": False},
    }
    runs = sw.plan(sw.as_spec(spec, traces=d))
    assert all(r.check for r in runs)
    # Non-default trace policies are part of a run's identity.
    assert len({r.key for r in runs}) == 2
    df = sw.sweep(sw.as_spec(spec, traces=d), out=tmp_path, workers=1).set_index("workload")
    # blkparse lists per-CPU batches one after another: clamped unless sorted.
    assert df.loc["clamp", "input.clamped"] > 0
    assert df.loc["sort", "input.clamped"] == 0
    # The default for blkparse is the sort window.
    auto = sw.as_spec({**spec, "workloads": {"auto": {"trace": blk, "limit": 400}}}, traces=d)
    assert sw.sweep(auto, out=tmp_path / "auto", workers=1)["input.clamped"].tolist() == [0]


def test_ray_backend_matches_local(tmp_path):
    pytest.importorskip("ray")
    local = sw.sweep(small_spec(seed=[1]), out=tmp_path / "local", workers=1)
    remote = sw.sweep(small_spec(seed=[1]), out=tmp_path / "ray", backend="ray")
    assert len(remote.attrs["executed"]) == 2
    cols = ["key", "latency_us.mean", "latency_us.p99", "waf", "requests"]
    pd.testing.assert_frame_equal(local[cols], remote[cols])


def test_resumed_sweep_uses_the_current_names(tmp_path):
    sw.sweep(small_spec(seed=[1]), out=tmp_path, workers=1)
    renamed = small_spec(seed=[1])
    renamed["workloads"] = {"reads": renamed["workloads"]["r"], "w": renamed["workloads"]["w"]}
    df = sw.sweep(renamed, out=tmp_path, workers=1)
    assert df.attrs["executed"] == [] and set(df["workload"]) == {"reads", "w"}


def test_device_toml_next_to_the_spec(tmp_path):
    (tmp_path / "dev.toml").write_text('preset = "ssdsim-default"\n[timing]\nread_us = 33.0\n')
    spec = tmp_path / "s.toml"
    spec.write_text(
        'name = "d"\n[base]\ndevice = "dev.toml"\n'
        '[workloads.w]\nsynthetic = "read=1,bs=4k,iops=100,n=10"\n'
    )
    (run,) = sw.plan(spec)
    assert "read_us = 33.0" in run.device_toml


def test_partial_temp_files_are_ignored_and_cleaned(tmp_path):
    plan = sw.plan(small_spec(seed=[1]))
    runs = tmp_path / "runs"
    runs.mkdir()
    # what a write killed before os.replace leaves behind: a truncated temp file
    junk = runs / f".{plan[0].key}.json.x1y2.tmp"
    junk.write_text('{"key": "trunc')
    df = sw.sweep(small_spec(seed=[1]), out=tmp_path, workers=1)
    assert not junk.exists()
    assert len(df.attrs["executed"]) == 2 and len(df) == 2
