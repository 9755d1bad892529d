"""The command line's arguments: every option documented with its default,
bad values a one-line usage error (exit 2, no traceback), old spellings
accepted with a deprecation note, a closed pipe not a traceback."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flashsched import cli

SMALL = ["--synthetic", "read=0.5,bs=4k,iops=2000,n=200", "--device", "ssdsim-default"]


def _parsers(p: argparse.ArgumentParser, path: str = "flashsched") -> Iterator[tuple[str, Any]]:
    yield path, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{path} {name}")


def test_every_option_of_every_command_has_help() -> None:
    parsers = list(_parsers(cli.build_parser()))
    assert len(parsers) >= 12  # the top level and every sub-command
    missing = [
        f"{path}: {'/'.join(a.option_strings) or a.dest}"
        for path, p in parsers
        for a in p._actions  # type: ignore[attr-defined]
        if not isinstance(a, argparse._SubParsersAction) and not a.help
    ]
    assert missing == []


def test_help_shows_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, shown in (
        (["run", "--help"], ["(default: 42)", "(default: auto)", "(default: 1.0)"]),
        (["compare", "--help"], ["(default: noop)", "(default: results/compare)"]),
        (["array-compare", "--help"], ["(default: 10gbe,practical)", "(default: 100.0)"]),
        (["bench", "--help"], ["(default: 1000000)"]),
    ):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 0
        out = capsys.readouterr().out
        for s in shown:
            assert s in " ".join(out.split()), (argv, s)
        assert "(default: None)" not in out and "(default: False)" not in out
        assert "deprecated" not in out  # old spellings are hidden


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", *SMALL, "--seed", "-1"], "--seed: -1 is outside [0, 2^64-1]"),
        (["run", *SMALL, "--seed", "1e23"], "--seed: expected a whole number, got '1e23'"),
        (["run", *SMALL, "--seed", str(2**64)], "is outside [0, 2^64-1]"),
        (["run", *SMALL, "--limit", "-3"], "--limit: expected a number of requests ≥ 1"),
        (["run", *SMALL, "--limit", "0"], "a run with no records is an error"),
        (["run", *SMALL, "--intensity", "0"], "--intensity: expected a finite number > 0"),
        (["run", *SMALL, "--intensity", "nan"], "--intensity: expected a finite number > 0"),
        (["run", *SMALL, "--queue-depth", "x"], "--queue-depth: expected a whole number"),
        (["run", *SMALL, "--bin-ms", "-5"], "--bin-ms: expected a finite number > 0"),
        (["compare", "--synthetic", "n=10", "--workers", "0"], "--workers: expected a whole"),
        (["array-compare", "--footprint", "1.5"], "--footprint: expected a fraction"),
    ],
)
def test_bad_values_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_out_must_not_be_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "afile"
    f.write_text("x")
    for argv in (["run", *SMALL, "--out", str(f)], ["sweep", "spec.toml", "--out", str(f)]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2
        assert "exists and is not a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", *SMALL, "--json", str(tmp_path)])
    assert "is a directory" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["run", *SMALL, "--json", str(tmp_path / "no" / "such" / "x.json")])
    assert "does not exist" in capsys.readouterr().err


def test_errors_from_the_simulator_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "--trace", "/no/such/trace.csv"]) == 2
    assert cli.main(["reproduce", "no-such-paper"]) == 2
    assert cli.main(["report", "/no/such/dir"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "choose from foundation, amphibian, aos, vios, serial-array" in err
    assert err.count("flashsched: error:") == 3


def test_old_spellings_work_with_a_note(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "s.json"
    argv = ["run", *SMALL, "--host-scheduler", "deadline", "--device-scheduler", "piq"]
    assert cli.main([*argv, "--json", str(out)]) == 0
    err = capsys.readouterr().err
    assert "--host-scheduler is deprecated; use --host-sched" in err
    assert "--device-scheduler is deprecated; use --device-sched" in err
    import json

    s = json.loads(out.read_text())
    assert (s["host_sched"], s["device_sched"]) == ("deadline", "piq")
    # bench --device named a bench case: now --case
    parser = cli.build_parser()
    args = parser.parse_args(["bench", "--device", "gc-heavy", "--case", "ssdsim-default"])
    assert args.case == ["gc-heavy", "ssdsim-default"]
    assert "--device is deprecated; use --case" in capsys.readouterr().err
    # the reproduction is serial-array; serial_array still finds it
    from flashsched.reproduce import get

    assert get("serial_array") is get("serial-array")


def test_closed_pipe_is_not_a_traceback() -> None:
    """`flashsched presets | head -1`: the reader goes away early."""
    proc = subprocess.run(
        f"{sys.executable} -m flashsched presets | head -1; "
        f"{sys.executable} -m flashsched run --synthetic n=3000 --device ssdsim-default | head -1",
        shell=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "BrokenPipe" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout.splitlines()[0].startswith("default")


def test_cli_imports_no_heavy_modules_for_a_run() -> None:
    """`flashsched run` printing a summary loads neither pandas, pyarrow nor
    matplotlib (BENCHMARKS.md "Start-up")."""
    code = (
        "import sys\n"
        "from flashsched import cli\n"
        "rc = cli.main(['run', '--synthetic', 'n=200', '--device', 'ssdsim-default'])\n"
        "heavy = [m for m in ('pandas', 'pyarrow', 'matplotlib', 'numpy', 'tqdm') "
        "if m in sys.modules]\n"
        "print('HEAVY', heavy, rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "HEAVY [] 0" in proc.stdout, proc.stdout + proc.stderr


def test_cli_run_out_loads_no_pandas(tmp_path: Path) -> None:
    """`flashsched run --out` streams rows through pyarrow and writes the
    per-second series itself: pandas (~0.2 s to import) stays unloaded."""
    code = (
        "import sys\n"
        "from flashsched import cli\n"
        f"rc = cli.main(['run', '--synthetic', 'n=200', '--out', {str(tmp_path / 'o')!r}])\n"
        "print('PANDAS', 'pandas' in sys.modules, rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "PANDAS False 0" in proc.stdout, proc.stdout + proc.stderr
    assert (tmp_path / "o" / "timeseries.csv").read_text().startswith("time_s,ios,")


def test_command_map_names_every_command_of_its_module() -> None:
    # `flashsched CMD` builds only CMD's module (start-up): the map must say
    # exactly which module registers each name.
    from flashsched import commands

    registered = {}
    for m in commands.MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        commands.module(m).register(sub)
        registered.update({name: m for name in sub.choices})
    assert registered == commands.BY_NAME


def test_one_command_parser_parses_as_the_full_one() -> None:
    argv = ["run", "--synthetic", "read=0.5,n=10", "--set", "timing.read_us=50", "--json", "-"]
    full = cli.build_parser().parse_args(argv)
    one = cli.build_parser(argv).parse_args(argv)
    assert vars(one) == vars(full)
    only = cli.build_parser(argv)._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(only) == {"run", "demo"}


def test_the_script_exit_runs_handlers_flushes_and_keeps_the_status() -> None:
    """The console entry ends the process without the interpreter's
    teardown (`cli._exit_now`), but as an exit would: atexit handlers run,
    buffered output reaches the pipe and the status is the command's."""
    code = (
        "import atexit, sys\n"
        "from flashsched import cli\n"
        "atexit.register(lambda: print('handler ran'))\n"
        "print('buffered', end=' ')\n"
        "sys.stderr.write('to stderr')\n"
        "cli._exit_now(3)\n"
        "print('not reached')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (3, "buffered handler ran\n", "to stderr")


def test_the_script_exit_is_the_ordinary_one_under_an_instrumented_build() -> None:
    """With ``LLVM_PROFILE_FILE`` set (the PGO training's builds write their
    counts from a C exit handler), `_exit_now` returns and the interpreter
    exits as usual: the code after it runs."""
    code = "from flashsched import cli\ncli._exit_now(0)\nprint('returned')\n"
    env = {**os.environ, "LLVM_PROFILE_FILE": os.devnull}
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert (proc.returncode, proc.stdout) == (0, "returned\n"), proc.stderr


def test_the_script_exit_waits_for_running_threads() -> None:
    """While a non-daemon thread runs (one an ordinary exit would join),
    `_exit_now` returns and the ordinary exit lets the thread finish."""
    code = (
        "import threading, time\n"
        "from flashsched import cli\n"
        "t = threading.Thread(target=lambda: (time.sleep(0.3), print('thread done')))\n"
        "t.start()\n"
        "cli._exit_now(0)\n"
        "print('returned')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["returned", "thread done"]
