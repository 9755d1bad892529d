"""``flashsched bench --versus``: the inputs both simulators read and the
errors a user meets before anything runs. (The timed runs need MQSim and
SSDsim built outside the project; BENCHMARKS.md records them.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from flashsched import bench_peers, cli


def test_random_trace_is_the_stated_mix_and_replays(tmp_path: Path) -> None:
    path = bench_peers.random_trace(tmp_path, None, n=4000)
    again = bench_peers.random_trace(tmp_path / "..", None, n=4000)
    rows = [line.split() for line in path.read_text().splitlines()]
    assert len(rows) == 4000
    assert path.read_bytes() == again.read_bytes()  # seeded: same bytes every time
    times = [int(r[0]) for r in rows]
    assert times == sorted(times)
    # Poisson at 20k IOPS: 4000 arrivals in about 0.2 s.
    assert 0.17e9 < times[-1] < 0.23e9
    sizes = {int(r[3]) for r in rows}
    assert sizes <= {8, 16, 24, 32}  # 4-16 KiB in 512 B sectors
    assert all(int(r[2]) % 8 == 0 and int(r[2]) < (16 << 30) // 512 for r in rows)
    reads = sum(r[4] == "1" for r in rows) / len(rows)
    assert 0.67 < reads < 0.73
    out = tmp_path / "s.json"
    argv = ["run", "--trace", str(path), "--format", "ascii-ns", "--device", "mqsim-default"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    assert json.loads(out.read_text())["requests"] == 4000


def test_ssdsim_sample_is_played_100_times_in_order(traces_dir: Path, tmp_path: Path) -> None:
    path = bench_peers.ssdsim_example_x100(tmp_path, traces_dir)
    src = (traces_dir / "ascii" / "ssdsim-example.ns.ascii").read_text().split("\n")
    src = [s for s in src if s.strip()]
    lines = path.read_text().splitlines()
    assert len(lines) == 100 * len(src) == bench_peers.CASES["ssdsim-x100"].requests
    times = [int(x.split()[0]) for x in lines]
    assert times == sorted(times)
    # Every copy keeps the request fields; only arrival times move.
    assert lines[len(src)].split()[1:] == src[0].split()[1:]


def test_our_side_runs_with_every_row_written(tmp_path: Path) -> None:
    # Records on, as a user keeping them gets them: streamed to Parquet.
    trace = bench_peers.random_trace(tmp_path, None, n=3000)
    case = bench_peers.VersusCase(
        "tiny", "mqsim", 3000, 25.0, {}, ["--format", "ascii-ns"], trace=None
    )
    cost, summary = bench_peers._ours(case, trace, tmp_path)
    assert cost.returncode == 0 and summary["requests"] == 3000
    assert bench_peers._parquet_rows(tmp_path / "tiny.flashsched" / "requests.parquet") == 3000
    short = bench_peers.VersusCase("tiny", "mqsim", 3001, 25.0, {}, ["--format", "ascii-ns"])
    with pytest.raises(RuntimeError, match="served 3000 of 3001 requests in tiny and wrote 3000"):
        bench_peers._ours(short, trace, tmp_path)


def test_missing_inputs_are_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="FLASHSCHED_TRACES"):
        bench_peers.ssdsim_example_x100(tmp_path, None)
    with pytest.raises(FileNotFoundError, match="MQSim"):
        bench_peers.versus(tmp_path, ["mqsim-trace-1m"], 1, None)
    with pytest.raises(ValueError, match="nope"):
        bench_peers.versus(tmp_path, ["nope"], 1, None)


def _cc(tmp: Path, name: str, *flags: str) -> Path:
    """A tiny C program compiled with ``flags`` (skips without a C compiler)."""
    import shutil
    import subprocess

    cc = shutil.which("gcc")
    if cc is None:
        pytest.skip("no gcc to build a peer-like binary")
    src = tmp / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    out = tmp / name
    subprocess.run([cc, *flags, "-o", str(out), str(src)], check=True, cwd=tmp)
    return out


def test_peer_builds_name_their_optimisation_and_checkout(tmp_path: Path) -> None:
    import subprocess

    from flashsched import peer_build

    # SSDsim's Makefile: `gcc -c -g`, no -O: unoptimised, and said so.
    plain = _cc(tmp_path, "ssd", "-g")
    d = peer_build.describe(plain)
    assert d["optimisation"] == ["-O0"]
    assert d["commit"] is None and d["dirty"] is None
    assert len(d["sha256"]) == 64 and d["producers"][0].startswith("GNU C")
    assert "warning: ssdsim is built without optimisation" in peer_build.summary_line("ssdsim", d)
    # The last -O wins, as in GCC; no debug information: unknown, no warning.
    assert peer_build.describe(_cc(tmp_path, "o2", "-g", "-O3", "-O2"))["optimisation"] == ["-O2"]
    assert peer_build.optimisation("GNU C17 12.2.0 -g -O") == "-O1"
    bare = peer_build.describe(_cc(tmp_path, "bare", "-O2"))
    assert bare["optimisation"] == [] and bare["producers"] == []
    line = peer_build.summary_line("mqsim", bare)
    assert "unknown (no debug information)" in line and "warning" not in line
    # In a git checkout: its commit, and whether tracked sources changed.
    git = ["git", "-C", str(tmp_path), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "p.c"], check=True)
    subprocess.run([*git, "commit", "-qm", "c"], check=True)
    d = peer_build.describe(plain)
    assert d["commit"] is not None and len(d["commit"]) == 40 and d["dirty"] is False
    (tmp_path / "p.c").write_text("int main(void) { return 1; }\n")
    assert peer_build.describe(plain)["dirty"] is True
    assert "(modified)" in peer_build.summary_line("ssdsim", peer_build.describe(plain))


def test_several_peer_builds_are_timed_interleaved_one_row_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from flashsched.proctime import ProcessCost

    # Two peers directories (as shipped, and rebuilt), each with an SSDsim
    # binary; the timed runs are stood in for, the bookkeeping is real.
    dirs = []
    for name, producer in [
        ("plain", b"GNU C17 12.2.0 -g -fcommon"),
        ("o2", b"GNU C17 12.2.0 -g -O2"),
    ]:
        d = tmp_path / name / "ssdsim"
        d.mkdir(parents=True)
        (d / "ssd").write_bytes(b"\x7fELF\x00" + producer + b"\x00")
        dirs.append(tmp_path / name)
    calls: list[str] = []
    wall = {str(dirs[0]): 4.0, str(dirs[1]): 3.0}

    def ours(case: object, trace: object, work: Path) -> tuple[ProcessCost, dict[str, object]]:
        calls.append("ours")
        s = {"latency_us": {"mean": 96.2}, "gc": {"pages_moved": 0}, "wall_s": 0.8}
        return ProcessCost(0, 1.0, 1.0, 80.0), s

    def peer(case: object, peers: Path, trace: object, work: Path) -> tuple[ProcessCost, dict]:
        calls.append(peers.name)
        assert work.name in ("peers0", "peers1")  # each build runs in its own directory
        return ProcessCost(0, wall[str(peers)], wall[str(peers)], 50.0), {"mean_us": 94.5}

    monkeypatch.setattr(bench_peers, "_ours", ours)
    monkeypatch.setattr(bench_peers, "_peer", peer)
    monkeypatch.setattr(bench_peers, "_input", lambda case, wdir, traces: None)
    # A third directory with the first one's binary: timed once, one row.
    (tmp_path / "again" / "ssdsim").mkdir(parents=True)
    (tmp_path / "again" / "ssdsim" / "ssd").write_bytes((dirs[0] / "ssdsim" / "ssd").read_bytes())
    rows = bench_peers.versus(
        [*dirs, tmp_path / "again"], ["ssdsim-x100"], 2, None, work=tmp_path / "w"
    )
    # Every repeat runs all three; the order flips between repeats.
    assert calls == ["ours", "plain", "o2", "o2", "plain", "ours"]
    assert [r["peers_dir"] for r in rows] == [str(d) for d in dirs]
    assert [r["speedup_wall"] for r in rows] == [4.0, 3.0]
    # Our side's core time beside its whole-process time.
    assert [r["flashsched_core_s"] for r in rows] == [0.8, 0.8]
    assert [r["peer_build"]["optimisation"] for r in rows] == [["-O0"], ["-O2"]]
    out = capsys.readouterr().out
    assert "warning: ssdsim is built without optimisation" in out
    assert "ssdsim [-O0]" in out and "ssdsim [-O2]" in out
    assert "flashsched    1.00 s (core 0.80 s, CPU 1.00 s, 80 MiB)" in out
