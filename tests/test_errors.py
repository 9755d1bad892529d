"""Error reporting: exception classes, messages that name the culprit, and
the CLI's exit code 2 with a one-line message on stderr."""

from __future__ import annotations

import re

import flashsched
import pytest
from flashsched import cli

DEVICE = "ssdsim-default"


def test_exception_hierarchy():
    for cls in (flashsched.ConfigError, flashsched.TraceError, flashsched.SimulationError):
        assert issubclass(cls, flashsched.FlashschedError)
    assert issubclass(flashsched.FlashschedError, Exception)
    assert not issubclass(FileNotFoundError, flashsched.FlashschedError)
    from flashsched import exceptions

    assert exceptions.ConfigError is flashsched.ConfigError
    assert exceptions.TraceError is flashsched.TraceError


def _cli_error(capsys, *argv: str) -> str:
    """Run the CLI in-process, expect exit code 2, return stderr."""
    rc = cli.main(list(argv))
    captured = capsys.readouterr()
    assert rc == 2, captured
    assert captured.err.startswith("flashsched: error: ")
    assert "Traceback" not in captured.err
    return captured.err


# --- config ---------------------------------------------------------------


def test_unknown_config_key_api():
    with pytest.raises(flashsched.ConfigError, match=r"timing\.raed_us") as e:
        flashsched.load_config("default", ["timing.raed_us=1"])
    assert "read_us" in str(e.value)  # suggests the known keys


def test_unknown_config_key_cli(run_cli):
    proc = run_cli("run", "--synthetic", "n=10", "--device", DEVICE, "--set", "timing.raed_us=1")
    assert proc.returncode == 2
    assert "timing.raed_us" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_unknown_config_section():
    with pytest.raises(flashsched.ConfigError, match="`timming`") as e:
        flashsched.load_config("default", ["timming.read_us=1"])
    assert "timing" in str(e.value).split("known", 1)[1]


def test_out_of_range_value_names_key_and_range(capsys):
    err = _cli_error(capsys, "config", "--set", "geometry.channels=0")
    assert "geometry.channels" in err
    assert re.search(r"\[1, \d+\]", err), err
    with pytest.raises(flashsched.ConfigError, match=r"geometry\.channels.*\[1, \d+\]"):
        flashsched.load_config("default", ["geometry.channels=0"])


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("ftl.overprovisioning=0.95", "ftl.overprovisioning"),
        ("timing.read_us=-5", "timing.read_us"),
        ("timing.read_us=nan", "timing.read_us"),
        ("host.queue_depth=0", "host.queue_depth"),
        ("geometry.page_size=1000", "geometry.page_size"),
        ("timing.cell=xyz", "timing.cell"),
        ("ftl.gc_policy=lru", "ftl.gc_policy"),
    ],
)
def test_bad_values_name_their_key(override, key):
    with pytest.raises(flashsched.ConfigError) as e:
        flashsched.load_config(DEVICE, [override])
    assert f"`{key}`" in str(e.value)


def test_malformed_override():
    with pytest.raises(flashsched.ConfigError, match="section.key=value"):
        flashsched.load_config(DEVICE, ["nodot"])


@pytest.mark.parametrize(
    "override,key",
    [
        ("timing.read_us=abc", "timing.read_us"),
        ("geometry.channels=abc", "geometry.channels"),
        ("host.queue_depth=1.5", "host.queue_depth"),
        ('timing.read_us="50"', "timing.read_us"),
    ],
)
def test_badly_typed_value_names_key(capsys, override, key):
    with pytest.raises(flashsched.ConfigError, match=key.replace(".", r"\.")):
        flashsched.load_config(DEVICE, [override])
    err = _cli_error(capsys, "config", DEVICE, "--set", override)
    assert key in err


def test_unknown_preset_lists_known(capsys):
    err = _cli_error(capsys, "config", "no-such-ssd")
    assert "no-such-ssd" in err
    for name, _ in flashsched.presets():
        assert name in err
    with pytest.raises(flashsched.ConfigError, match="no-such-ssd"):
        flashsched.run(synthetic="n=10", device="no-such-ssd")


def test_missing_device_toml():
    with pytest.raises(FileNotFoundError, match="nowhere.toml"):
        flashsched.load_config("/nonexistent/nowhere.toml")


def test_unknown_host_scheduler(capsys):
    with pytest.raises(flashsched.ConfigError, match="bogus") as e:
        flashsched.run(synthetic="n=10", device=DEVICE, host_sched="bogus")
    assert "host.scheduler" in str(e.value)
    for name in flashsched.host_schedulers():
        assert name in str(e.value)
    err = _cli_error(capsys, "run", "--synthetic", "n=10", "--device", DEVICE, "--host-sched", "x")
    assert "host scheduler" in err


def test_unknown_device_scheduler():
    with pytest.raises(flashsched.ConfigError, match="controller.scheduler") as e:
        flashsched.run(synthetic="n=10", device=DEVICE, device_sched="bogus")
    for name in flashsched.device_schedulers():
        assert name in str(e.value)


# --- workloads ----------------------------------------------------------------


def test_unknown_trace_format(fig5_trace, capsys):
    with pytest.raises(flashsched.FlashschedError, match="bogus") as e:
        flashsched.run(trace=fig5_trace, format="bogus", device=DEVICE)
    assert "ascii-ns" in str(e.value)  # lists the known formats
    err = _cli_error(capsys, "run", "--trace", str(fig5_trace), "--format", "bogus")
    assert "unknown trace format" in err


def test_missing_trace_api(tmp_path):
    missing = tmp_path / "no-such-trace.csv"
    with pytest.raises(FileNotFoundError) as e:
        flashsched.run(trace=missing, device=DEVICE)
    assert str(missing) in str(e.value)
    assert not isinstance(e.value, flashsched.FlashschedError)
    with pytest.raises(FileNotFoundError):
        flashsched.detect_format(missing)


def test_missing_trace_cli(run_cli, tmp_path):
    missing = tmp_path / "no-such-trace.csv"
    proc = run_cli("run", "--trace", str(missing), "--device", DEVICE)
    assert proc.returncode == 2
    assert str(missing) in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("fmt", ["auto", "msr"])
def test_malformed_trace_line_names_file_and_line(bad_msr_trace, fmt):
    with pytest.raises(flashsched.TraceError) as e:
        flashsched.run(trace=bad_msr_trace, format=fmt, device=DEVICE)
    msg = str(e.value)
    assert f"{bad_msr_trace}:3" in msg
    assert "size" in msg
    assert "4k" in msg  # quotes the offending field


def test_malformed_trace_line_cli(bad_msr_trace, capsys):
    err = _cli_error(capsys, "run", "--trace", str(bad_msr_trace), "--device", DEVICE)
    assert f"{bad_msr_trace.name}:3" in err


def test_undetectable_trace_format(tmp_path):
    p = tmp_path / "junk.txt"
    p.write_text("hello world\nfoo bar\n")
    with pytest.raises(flashsched.TraceError, match="junk.txt:1") as e:
        flashsched.detect_format(p)
    assert "format" in str(e.value)
    with pytest.raises(flashsched.TraceError):
        flashsched.run(trace=p, device=DEVICE)


def test_empty_trace_cannot_be_detected(tmp_path):
    p = tmp_path / "empty.trace"
    p.write_text("")
    with pytest.raises(flashsched.TraceError, match="empty"):
        flashsched.run(trace=p, device=DEVICE)


def test_empty_trace_with_explicit_format_is_an_error(tmp_path):
    """An empty trace is bad input (docs/reliability.md), not an empty run."""
    p = tmp_path / "empty.csv"
    p.write_text("")
    with pytest.raises(flashsched.TraceError, match=r"empty\.csv:0: no records .* empty"):
        flashsched.run(trace=p, format="msr", device=DEVICE)


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("read=0.7,n=10,bogus=3", "synthetic.bogus"),
        ("read=1.5,n=10", "synthetic.read"),
        ("bs=0,n=10", "synthetic.bs"),
        ("n=abc", "synthetic.n"),
        ("read", "synthetic.read"),
    ],
)
def test_bad_synthetic_spec_names_key(spec, key):
    with pytest.raises(flashsched.ConfigError) as e:
        flashsched.run(synthetic=spec, device=DEVICE)
    assert f"`{key}`" in str(e.value)


def test_bad_synthetic_key_cli(run_cli):
    proc = run_cli("run", "--synthetic", "n=10,bogus=3", "--device", DEVICE)
    assert proc.returncode == 2
    assert "synthetic.bogus" in proc.stderr


@pytest.mark.parametrize("intensity", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_intensity(fig5_trace, intensity):
    with pytest.raises(flashsched.ConfigError, match="intensity"):
        flashsched.run(trace=fig5_trace, device=DEVICE, intensity=intensity)


def test_exactly_one_workload_source(fig5_trace):
    with pytest.raises(flashsched.ConfigError, match="exactly one"):
        flashsched.simulation(device=DEVICE)
    with pytest.raises(flashsched.ConfigError, match="exactly one"):
        flashsched.simulation(trace=fig5_trace, synthetic="n=10", device=DEVICE)
