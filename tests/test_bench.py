"""The benchmark command: every case runs and reports what BENCHMARKS.md
records (no timing is asserted: timings belong in benchmarks)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from flashsched import bench, cli


def test_bench_cases_report_rates_memory_and_verdicts(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    # Enough writes to use up the preconditioned free reserve of gc-heavy.
    n = 100_000
    rc = cli.main(
        [
            "bench",
            "--case",
            "ssdsim-default",
            "--case",
            "gc-heavy",
            "--requests",
            str(n),
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    rows = json.loads(out.read_text())["cases"]
    assert [r["case"] for r in rows] == ["ssdsim-default", "gc-heavy"]
    for r in rows:
        assert r["requests"] == n
        assert r["requests_per_s"] > 0 and r["events_per_s"] > 0
        assert r["peak_rss_mib"] >= r["python_baseline_mib"] > 0
        assert bench.verdict(r) in ("met", "MISSED") or bench.verdict(r).startswith("not judged")
    assert bench.verdict({"requests_per_s": 1.0}) == "measured"  # no target
    gc = rows[1]
    # 90 % fill: every write past the free reserve forces GC page moves.
    assert gc["gc_pages_moved"] > 0 and gc["waf"] > 1.0
    # 4 bytes per logical + 4 per physical page, plus per-block metadata.
    assert 7.5 <= gc["table_bytes_per_page"] < 9.0


def test_verdict_checks_every_target() -> None:
    r = {"requests_per_s": 3e6, "target_rps": 2e6, "peak_rss_mib": 600, "target_rss_mib": 512}
    assert bench.verdict(r) == "MISSED"
    r["peak_rss_mib"] = 100
    assert bench.verdict(r) == "met"
    assert bench.verdict({"build_s": 12.0, "target_build_s": 10.0}) == "MISSED"


def test_a_miss_on_a_busy_machine_is_not_judged() -> None:
    r = {"requests_per_s": 5e5, "target_rps": 1e6, "load_max": 3.2}
    assert bench.verdict(r) == "not judged: load 3.2"
    assert bench.verdict({**r, "load_max": 0.4}) == "MISSED"
    # A target met under load is met: load only slows a run down.
    assert bench.verdict({**r, "requests_per_s": 2e6}) == "met"


def test_a_rate_the_reference_missed_too_is_not_judged() -> None:
    # 0.98 M/s against a 1 M/s target, beside a reference at 0.96 M/s.
    r = {
        "requests_per_s": 980_000,
        "target_rps": 1e6,
        "reference": {"requests_per_s": 957_000},
        "vs_reference": 1.02,
    }
    assert bench.verdict(r) == "not judged: the reference ran at 0.96 M/s here"
    # Slower than the reference by more than the spread: a miss.
    assert bench.verdict({**r, "vs_reference": 0.9}) == "MISSED"
    # The reference met the target: this build's miss is its own.
    assert bench.verdict({**r, "reference": {"requests_per_s": 1_100_000}}) == "MISSED"
    # Other targets are not the machine's speed.
    over = {**r, "peak_rss_mib": 600, "target_rss_mib": 512}
    assert bench.verdict(over) == "MISSED"


def test_array_cases_run_sixteen_ssds(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    argv = ["bench", "--case", "raid0-16", "--case", "serial-16", "--requests", "3000"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["cases"]
    assert [r["case"] for r in rows] == ["raid0-16", "serial-16"]
    for r in rows:
        assert r["requests"] == 3000 and r["requests_per_s"] > 0
        assert r["device"].startswith("16 x default")
        assert r["mean_latency_us"] > 0


@pytest.mark.parametrize("case", ["run-trace", "run-trace-out"])
def test_run_trace_times_a_whole_flashsched_process(tmp_path: Path, case: str) -> None:
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--case", case, "--requests", "3000", "--json", str(out)]) == 0
    (r,) = json.loads(out.read_text())["cases"]
    assert r["requests"] == 3000 and r["device"] == "mqsim-default"
    # The whole process: at least the interpreter's start-up and memory.
    assert r["run_s"] > 0 and r["cpu_s"] > 0 and r["peak_rss_mib"] > 5
    assert r["events"] > 3000 and bench.verdict(r) == "measured"


def test_reference_runs_are_paired_with_each_case() -> None:
    import sys

    (row,) = bench.main(["ssdsim-default"], 2000, repeat=2, reference=sys.executable)
    ref = row["reference"]
    assert ref["repeats"] == 2 and row["repeats"] == 2
    assert ref["requests"] == row["requests"] == 2000
    assert row["vs_reference"] == round(ref["run_s"] / row["run_s"], 3)


def test_whole_process_case_runs_under_the_reference_interpreter(tmp_path, capsys) -> None:
    """`run-trace` is a `flashsched run` process: paired with a reference,
    the reference interpreter runs it on the same trace (it used to be
    handed to the reference as a synthetic spec and refused); a reference
    that cannot run it is named and left out."""
    import sys

    (row,) = bench.main(["run-trace"], 2000, reference=sys.executable)
    ref = row["reference"]
    assert ref["requests"] == row["requests"] == 2000
    assert ref["events"] == row["events"] and ref["mean_latency_us"] == row["mean_latency_us"]
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 3\n")
    fake.chmod(0o755)
    assert bench._reference_run("run-trace", 500, str(fake)) is None
    assert f"{fake} -m flashsched run exited 3" in capsys.readouterr().err


def test_repeated_runs_report_the_median_run() -> None:
    runs = [{"run_s": t, "build_s": 0.0, "requests_per_s": round(1e6 / t)} for t in (0.5, 0.4, 0.7)]
    r = bench.summarize(runs)
    assert r["run_s"] == 0.5 and r["requests_per_s"] == 2_000_000
    assert r["repeats"] == 3
    assert r["requests_per_s_all"] == [2_000_000, 2_500_000, 1_428_571]
    # An even count takes the slower middle run.
    assert bench.summarize(runs[:2])["run_s"] == 0.5
    assert bench.summarize(runs[:1])["run_s"] == 0.5
    builds = [{**x, "build_s": b, "target_build_s": 10.0} for x, b in zip(runs, (3.0, 1.0, 2.0))]
    assert bench.summarize(builds)["build_s"] == 2.0


def test_repeat_runs_each_case_that_often(tmp_path: Path) -> None:
    out = tmp_path / "bench.json"
    argv = ["bench", "--case", "ssdsim-default", "--requests", "2000", "--repeat", "2"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["cases"]
    assert row["repeats"] == 2 and len(row["requests_per_s_all"]) == 2
    with pytest.raises(ValueError, match="--repeat"):
        bench.main(["ssdsim-default"], 10, repeat=0)


def test_unknown_case_is_named() -> None:
    with pytest.raises(ValueError, match="nope"):
        bench.main(["nope"], 10)


def test_sweep_scaling_runs_both_worker_counts() -> None:
    r = bench.sweep_scaling(2000)
    assert r["runs"] == bench.SCALING_RUNS
    assert r["one_worker_s"] > 0 and r["two_workers_s"] > 0 and r["speedup"] > 0


def test_python_overhead_compares_with_core_wall() -> None:
    rows = bench.python_overhead(5000)
    assert [r["keep_records"] for r in rows] == [False, True]
    assert rows[1]["dataframe_rows"] == 5000
    assert all(r["python_s"] >= r["core_s"] > 0 for r in rows)


def test_reference_build_names_the_other_install(tmp_path):
    """A paired bench says which builds it compares: the reference's PGO
    profile (here the same install as this one), or that it cannot tell."""
    from flashsched.cli import build_note

    assert bench.reference_build(sys.executable) == build_note()
    assert bench.reference_build(str(tmp_path / "no-python")) == "build unknown"
    # An interpreter without flashsched (or one too old to say).
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    assert bench.reference_build(str(fake)) == "build unknown"


def test_help_lists_every_bench_case() -> None:
    # The list is spelled out so `flashsched bench --help` need not import
    # the bench module: it must name exactly the cases there are.
    from flashsched.commands import bench as command

    assert [c.strip() for c in command.CASES.split(",")] == list(bench.CASES)
