"""Real-device replay from Python and the CLI: every host scheduler on a
file target, the same outputs as ``run``, errors as FlashschedError
subclasses, guard regions untouched, Ctrl-C stopping cleanly, the probe.
Tests needing io_uring skip where the kernel or container forbids it; the
thread-pool fallback is tested everywhere."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import flashsched
import pandas as pd
import pytest
from flashsched import _core

MIB = 1 << 20


@pytest.fixture
def uring() -> None:
    why = _core.uring_unavailable()
    if why is not None:
        pytest.skip(f"io_uring unavailable here: {why}")


@pytest.fixture
def tdir(tmp_path: Path) -> Path:
    """A directory whose file system accepts O_DIRECT (else skip)."""
    probe = tmp_path / "odirect"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_RDWR | getattr(os, "O_DIRECT", 0))
        os.close(fd)
    except OSError as e:
        pytest.skip(f"O_DIRECT unsupported in {tmp_path}: {e}")
    return tmp_path


def guarded(path: Path, guard: int, window: int) -> str:
    """A file: `guard` bytes of noise, a zeroed window, `guard` of noise;
    returns the digest of the two guards."""
    noise = os.urandom(guard)
    with open(path, "wb") as f:
        f.write(noise)
        f.truncate(guard + window)
        f.seek(guard + window)
        f.write(noise)
    return guard_digest(path, guard, window)


def guard_digest(path: Path, guard: int, window: int) -> str:
    data = path.read_bytes()
    assert len(data) == 2 * guard + window, "the file changed size"
    return hashlib.sha256(data[:guard] + data[guard + window :]).hexdigest()


def test_every_host_scheduler_replays_with_run_outputs(
    uring: None, tdir: Path, helpers: Any
) -> None:
    target = tdir / "t.bin"
    digest = guarded(target, MIB, 16 * MIB)
    for hs in flashsched.host_schedulers():
        res = flashsched.replay(
            target=target,
            offset="1m",
            size="16m",
            allow_write=True,
            verify=True,
            host_sched=hs,
            queue_depth=16,
            synthetic="read=0.6,bs=4k-32k,qd=16,n=1500",
        )
        s = res.summary
        assert s["host_sched"] == hs
        assert s["requests"] == 1500 and s["reads"] + s["writes"] == 1500
        assert s["replay"]["backend"]["backend"] == "io_uring"
        assert s["replay"]["target"]["kind"] == "file"
        assert s["replay"]["verify"]["blocks_checked"] > 0
        assert s["gc"] is None and s["waf"] is None, "not observable on a real device"
        helpers.check_requests_frame(res.requests, s)
        assert (res.requests["complete_ns"] >= res.requests["dispatch_ns"]).all()
        assert res.timeseries["ios"].sum() == 1500
        assert guard_digest(target, MIB, 16 * MIB) == digest, f"{hs} touched a guard"
    out = res.save(tdir / "out")
    assert {p.name for p in out.iterdir()} >= {"summary.json", "requests.parquet", "timeseries.csv"}
    assert len(pd.read_parquet(out / "requests.parquet")) == 1500


def test_thread_pool_fallback_runs_and_says_so(tdir: Path) -> None:
    res = flashsched.replay(
        target=tdir / "f.bin",
        size="8m",
        allow_write=True,
        verify=True,
        backend="threads",
        synthetic="read=0.5,bs=4k,qd=8,n=800",
    )
    be = res.summary["replay"]["backend"]
    assert be["backend"] == "threads" and "FALLBACK" in be["warning"]
    assert res.summary["requests"] == 800


def test_errors_are_flashsched_errors(tdir: Path) -> None:
    t = tdir / "e.bin"
    t.write_bytes(b"\1" * (4 * MIB))
    before = t.read_bytes()
    with pytest.raises(flashsched.UnsafeTargetError, match="read-only"):
        flashsched.replay(target=t, synthetic="read=0.5,bs=4k,qd=2,n=50", backend="threads")
    assert t.read_bytes() == before
    with pytest.raises(flashsched.ConfigError, match="allow_write"):
        flashsched.replay(target=t, verify=True, synthetic="read=1,bs=4k,qd=1,n=5")
    with pytest.raises(flashsched.ConfigError, match="give a size"):
        flashsched.replay(target=tdir / "absent.bin", synthetic="read=1,bs=4k,qd=1,n=5")
    with pytest.raises(flashsched.ConfigError, match="ends past the end"):
        flashsched.replay(target=t, size="8m", synthetic="read=1,bs=4k,qd=1,n=5")
    with pytest.raises(flashsched.ConfigError, match="backend"):
        flashsched.replay(target=t, backend="spdk", synthetic="read=1,bs=4k,qd=1,n=5")
    with pytest.raises(flashsched.ConfigError, match="size"):
        flashsched.replay(target=t, size="lots", synthetic="read=1,bs=4k,qd=1,n=5")
    assert issubclass(flashsched.VerifyError, flashsched.ReplayError)
    assert issubclass(flashsched.ReplayError, flashsched.FlashschedError)


def _root_block_device() -> Path | None:
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        f = line.split(" ")
        if len(f) > 4 and f[4] == "/" and "-" in f:
            src = Path(f[f.index("-") + 2])
            if src.exists() and src.is_block_device():
                return src
    return None


def test_mounted_block_device_refused_for_writing() -> None:
    dev = _root_block_device()
    if dev is None:
        pytest.skip("`/` is not on a block device here")
    with pytest.raises(flashsched.UnsafeTargetError, match="mounted"):
        flashsched.replay(target=dev, allow_write=True, synthetic="read=1,bs=4k,qd=1,n=1")


@pytest.fixture
def loop_device(tdir: Path) -> Iterator[tuple[Path, Path]]:
    """A loop device over a guarded 18 MiB file in `tdir` (1 MiB guards, a
    16 MiB window); skips where loop devices cannot be attached (not root,
    no losetup, a container without /dev/loop-control). Detaches only its own."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("loop devices need root and losetup")
    if not Path("/dev/loop-control").exists():
        pytest.skip("no /dev/loop-control here")
    backing = tdir / "loop.img"
    guarded(backing, MIB, 16 * MIB)
    for extra in (["--direct-io=on"], []):
        p = subprocess.run(
            ["losetup", "--find", "--show", *extra, str(backing)], capture_output=True, text=True
        )
        if p.returncode == 0:
            break
    else:
        pytest.skip(f"losetup cannot attach a loop device here: {p.stderr.strip()}")
    dev = Path(p.stdout.strip())
    try:
        yield dev, backing
    finally:
        subprocess.run(["losetup", "--detach", str(dev)], capture_output=True)


def test_loop_device_replay_stays_in_its_window(loop_device: tuple[Path, Path]) -> None:
    dev, backing = loop_device
    digest = guard_digest(backing, MIB, 16 * MIB)
    with pytest.raises(flashsched.UnsafeTargetError, match="allow_write|read-only"):
        flashsched.replay(target=dev, offset="1m", size="16m", synthetic="read=0,bs=4k,qd=1,n=5")
    res = flashsched.replay(
        target=dev,
        offset="1m",
        size="16m",
        allow_write=True,
        verify=True,
        host_sched="deadline",
        queue_depth=16,
        synthetic="read=0.5,bs=4k-64k,qd=16,n=2000",
    )
    s = res.summary
    assert s["replay"]["target"]["kind"] == "block"
    assert s["replay"]["target"]["capacity"] == 18 * MIB
    assert s["requests"] == 2000 and s["replay"]["verify"]["blocks_checked"] > 0
    assert guard_digest(backing, MIB, 16 * MIB) == digest, "a byte outside the window changed"


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "flashsched", *args]


def test_ctrl_c_stops_cleanly_with_a_summary(uring: None, tdir: Path) -> None:
    target = tdir / "c.bin"
    digest = guarded(target, MIB, 32 * MIB)
    out = tdir / "s.json"
    proc = subprocess.Popen(
        _cli(
            "replay", "--target", str(target), "--offset", "1m", "--size", "32m",
            "--allow-write", "--verify", "--synthetic", "read=0.5,bs=4k,qd=8,time=60s",
            "--json", str(out), "--no-progress",
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C reaches the child even where this suite runs with SIGINT
        # ignored (a shell's background job, `nohup ... &`): inherited, that
        # leaves Python without its handler, and the replay runs to its end.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(3.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "INTERRUPTED" in stdout
    s = json.loads(out.read_text())
    assert s["replay"]["loop"]["interrupted"] is True
    assert s["requests"] > 0 and s["replay"]["verify"]["blocks_checked"] > 0
    assert guard_digest(target, MIB, 32 * MIB) == digest


def test_cli_replay_of_a_sample_trace(
    uring: None, tdir: Path, traces_dir: Path, run_cli: Callable[..., Any]
) -> None:
    trace = traces_dir / "msr" / "hm_0.first1000.csv"
    if not trace.exists():
        pytest.skip(f"{trace} absent")
    p = run_cli(
        "replay", "--target", str(tdir / "tr.bin"), "--size", "256m", "--allow-write",
        "--verify", "--trace", str(trace), "--intensity", "10", "--host-sched", "noop,amphibian",
        "--out", str(tdir / "res"), "--no-progress",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "amphibian" in p.stdout and "host-sched" in p.stdout
    for hs in ("noop", "amphibian"):
        s = json.loads((tdir / "res" / hs / "summary.json").read_text())
        assert s["requests"] == 1000 and s["input"]["records"] == 1000


def test_probe_fits_and_plots(uring: None, tdir: Path, run_cli: Callable[..., Any]) -> None:
    js = tdir / "probe.json"
    p = run_cli(
        "probe", "--target", str(tdir / "p.bin"), "--size", "32m", "--allow-write",
        "--sizes", "4k,16k,64k,256k", "--per-size", "20", "--json", str(js),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "fit read" in p.stdout and "fit write" in p.stdout
    r = json.loads(js.read_text())
    assert [x["size"] for x in r["points"] if x["op"] == "read"] == [4096, 16384, 65536, 262144]
    assert r["prefilled"] is True, "a created file is written first so reads reach the device"
    png = js.with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(flashsched.ConfigError, match="multiple"):
        flashsched.probe(target=tdir / "p.bin", sizes=[1000])


def test_compare_puts_simulated_and_real_side_by_side(tdir: Path) -> None:
    from flashsched.realcompare import sim_vs_real

    df = flashsched.compare(
        synthetic="read=0.7,bs=4k-16k,qd=8,n=600",
        host_sched="noop,deadline",
        device="ssdsim-default",
        queue_depth=8,
        real=str(tdir / "cmp.bin"),
        real_options={"size": "16m", "allow_write": True, "verify": True},
    )
    assert list(df["kind"]) == ["sim", "sim", "real", "real"]
    real = df[df["kind"] == "real"]
    assert (real["device"] == f"real:{tdir / 'cmp.bin'}").all()
    assert (real["device_sched"] == "device firmware").all()
    assert (df["requests"] == 600).all() and real["gc_invocations"].isna().all()
    assert real["norm_mean"].iloc[0] == 1.0, "real rows are their own normalisation group"
    side = sim_vs_real(df)
    assert list(side["host_sched"]) == ["noop", "deadline"]
    for _, r in side.iterrows():
        assert r["mean_latency_us_real/sim"] == pytest.approx(
            r["mean_latency_us_real"] / r["mean_latency_us_sim"]
        )
    with pytest.raises(flashsched.ConfigError, match=r"real_options: unknown \['sise'\]"):
        flashsched.compare(synthetic="read=1,bs=4k,qd=1,n=5", real="x", real_options={"sise": 1})
    with pytest.raises(flashsched.UnsafeTargetError, match="allow"):
        flashsched.compare(
            synthetic="read=0.5,bs=4k,qd=2,n=20",
            device="ssdsim-default",
            real=str(tdir / "cmp.bin"),
        )


def test_cli_compare_with_a_real_target(tdir: Path, run_cli: Callable[..., Any]) -> None:
    p = run_cli(
        "compare", "--synthetic", "read=1,bs=4k,qd=4,n=300", "--device", "ssdsim-default",
        "--host-sched", "noop", "--queue-depth", "4", "--real", str(tdir / "c.bin"),
        "--real-size", "8m", "--csv", str(tdir / "t.csv"),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "simulated vs real" in p.stdout and "mean_latency_us_real/sim" in p.stdout
    assert list(pd.read_csv(tdir / "t.csv")["kind"]) == ["sim", "real"]


def test_probe_text_survives_a_degenerate_fit() -> None:
    """A fit of noisy points (a stall on a shared disk, a slope <= 0 with no
    MB/s) comes back from JSON as nulls: the table says n/a, no crash."""
    from flashsched.realdev import ProbeResult

    raw = {
        "target": {"path": "/x", "kind": "file"},
        "window": {"size": 1 << 20, "offset": 0},
        "backend": {"backend": "threads"},
        "prefilled": True,
        "points": [
            {"op": "read", "size": 4096, "n": 5, "mean_us": 90.0, "p50_us": 80.0,
             "p99_us": 300.0, "min_us": 70.0},
        ],  # fmt: skip
        "fits": [
            {"op": "read", "intercept_us": None, "slope_us_per_kib": -0.5, "mb_s": None,
             "r2": None},
        ],  # fmt: skip
    }
    text = ProbeResult(raw).text()
    assert "latency = n/a us + -0.500 us/KiB" in text and "(n/a MB/s, R^2 n/a)" in text
