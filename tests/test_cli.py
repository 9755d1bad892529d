"""The ``flashsched`` command line, as a subprocess and in-process."""

from __future__ import annotations

import json

import flashsched
import pandas as pd
import pytest
from flashsched import cli

DEVICE = "ssdsim-default"
SMALL = "read=0.7,bs=4k-16k,iops=3000,n=2000"


def test_presets(run_cli):
    proc = run_cli("presets", check=True)
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
    assert names == [n for n, _ in flashsched.presets()]
    assert {"default", "mqsim-default", "ssdsim-default", "vios-128g"} <= set(names)


def test_formats(run_cli):
    proc = run_cli("formats", check=True)
    names = [line.split()[0] for line in proc.stdout.splitlines() if line.strip()]
    assert names[0] == "auto"
    for f in ("msr", "spc", "ascii-ns", "ascii-ms", "ssdsim", "blkparse", "fiu", "heimdall"):
        assert f in names, f


def test_schedulers(run_cli):
    out = run_cli("schedulers", check=True).stdout
    lines = dict(line.split(":", 1) for line in out.splitlines() if ":" in line)
    assert [s.strip() for s in lines["host"].split(",")] == flashsched.host_schedulers()
    assert [s.strip() for s in lines["device"].split(",")] == flashsched.device_schedulers()


def test_config_with_override(run_cli, toml_loads):
    proc = run_cli("config", "mqsim-default", "--set", "timing.read_us=50", check=True)
    assert "read_us = 50.0" in proc.stdout.splitlines()
    cfg = toml_loads(proc.stdout)
    assert cfg["preset"] == "mqsim-default"
    assert cfg["timing"]["read_us"] == 50.0
    assert proc.stdout == flashsched.load_config("mqsim-default", ["timing.read_us=50"])


def test_version(run_cli):
    proc = run_cli("--version", check=True)
    assert flashsched.__version__ in proc.stdout


def test_run_json_file(run_cli, tmp_path, helpers):
    out = tmp_path / "out.json"
    proc = run_cli("run", "--synthetic", SMALL, "--device", DEVICE, "--json", str(out), check=True)
    s = json.loads(out.read_text())
    helpers.check_summary_schema(s)
    assert s["requests"] == 2000
    assert s["device"] == DEVICE
    # the human-readable summary still goes to stdout
    assert "requests 2,000" in proc.stdout
    assert "latency (µs)" in proc.stdout


def test_run_json_stdout_matches_api(run_cli, helpers):
    proc = run_cli(
        "run", "--synthetic", SMALL, "--device", DEVICE, "--seed", "3", "--json", "-", check=True
    )
    s = json.loads(proc.stdout)  # nothing but JSON on stdout
    helpers.check_summary_schema(s)
    api = flashsched.run(synthetic=SMALL, device=DEVICE, seed=3).summary
    for key in ("requests", "reads", "writes", "events", "simulated_s", "latency_us", "gc"):
        assert s[key] == api[key], key


def test_run_out_dir(run_cli, tmp_path, toml_loads):
    out = tmp_path / "res"
    proc = run_cli(
        "run",
        "--synthetic",
        SMALL,
        "--device",
        DEVICE,
        "--no-progress",
        "--out",
        str(out),
        check=True,
    )
    assert "results written to" in proc.stderr
    for name in ("summary.json", "config.toml", "timeseries.csv", "requests.parquet"):
        assert (out / name).is_file(), name
    s = json.loads((out / "summary.json").read_text())
    df = pd.read_parquet(out / "requests.parquet")
    assert len(df) == s["requests"] == 2000
    assert int(pd.read_csv(out / "timeseries.csv")["ios"].sum()) == 2000
    assert toml_loads((out / "config.toml").read_text())["preset"] == DEVICE


def test_run_trace_fig5(run_cli, fig5_trace, helpers):
    args = ["run", "--trace", str(fig5_trace), "--format", "ascii-ns", "--device", "default"]
    for o in helpers.FIG5_OVERRIDES:
        args += ["--set", o]
    proc = run_cli(*args, "--queue-depth", "1", "--json", "-", check=True)
    s = json.loads(proc.stdout)
    assert s["requests"] == 4
    assert s["latency_us"]["mean"] == 275.0
    assert s["latency_us"]["max"] == 350.0


def test_run_requires_a_workload(run_cli):
    proc = run_cli("run", "--device", DEVICE)
    assert proc.returncode == 2
    assert "--trace" in proc.stderr and "--synthetic" in proc.stderr


def test_demo(run_cli):
    """The README's headline command (~2 s): 200k requests with GC running."""
    proc = run_cli("demo", "--json", "-", check=True)
    s = json.loads(proc.stdout)
    assert s["requests"] == 200_000
    assert s["device"] == "default"
    assert s["gc"]["invocations"] > 0
    assert s["waf"] > 1.0
    assert "flashsched demo" in proc.stderr


# --- in-process ------------------------------------------------------------


def test_main_presets_in_process(capsys):
    assert cli.main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "ssdsim-default" in out and "vios-128g" in out


def test_main_run_in_process(capsys, tmp_path):
    out = tmp_path / "s.json"
    rc = cli.main(
        [
            "run",
            "--synthetic",
            "read=0.5,bs=4k,iops=2000,n=500",
            "--device",
            DEVICE,
            "--host-sched",
            "noop",
            "--device-sched",
            "fifo",
            "--queue-depth",
            "2",
            "--json",
            str(out),
        ]
    )
    assert rc == 0
    s = json.loads(out.read_text())
    assert s["requests"] == 500
    assert s["host_sched"] == "noop"
    assert s["device_sched"] == "fifo"
    assert "requests 500" in capsys.readouterr().out


def test_main_config_in_process(capsys, toml_loads):
    assert cli.main(["config", DEVICE, "--set", "host.queue_depth=9"]) == 0
    cfg = toml_loads(capsys.readouterr().out)
    assert cfg["host"]["queue_depth"] == 9


def test_main_argparse_error_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "--synthetic", "n=1", "--trace", "x.csv"])
    assert e.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_cli_keeps_blas_to_one_thread_unless_told(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # OpenBLAS's spinning workers would take the core the trace reader and
    # the Parquet writer use; a user's own setting wins.
    import os

    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "8")
    assert cli.main(["presets"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "8"
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    assert cli.main(["presets"]) == 0
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
    capsys.readouterr()
