"""Wrong-type and out-of-domain API arguments raise FlashschedError
subclasses that name the argument, never a bare TypeError or OverflowError
from the bindings; the subclasses are still TypeError / ValueError."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import flashsched
import pytest

DEV = "ssdsim-default"
SYN = "read=0.5,bs=4k,iops=2000,n=100"
SPEC = {"name": "t", "base": {"device": DEV}, "workloads": {"w": {"synthetic": SYN}}}
T, V = flashsched.ArgumentTypeError, flashsched.ArgumentValueError


def run(**kw: Any) -> Callable[[], Any]:
    return lambda: flashsched.run(**({"synthetic": SYN, "device": DEV} | kw))


def array(**kw: Any) -> Callable[[], Any]:
    return lambda: flashsched.run_array(**({"device": DEV, "phases": ["n=50"]} | kw))


CALLS: list[tuple[str, Callable[[], Any], type, str]] = [
    ("seed negative", run(seed=-1), V, "seed"),
    ("seed float", run(seed=1e23), T, "seed"),
    ("seed too big", run(seed=2**64), V, "seed"),
    ("seed str", run(seed="42"), T, "seed"),
    ("seed bool", run(seed=True), T, "seed"),
    ("queue_depth str", run(queue_depth="32"), T, "queue_depth"),
    ("queue_depth zero", run(queue_depth=0), V, "queue_depth"),
    ("queue_depth float", run(queue_depth=8.0), T, "queue_depth"),
    ("limit negative", lambda: flashsched.run(trace="x.csv", limit=-3), V, "limit"),
    ("limit zero", lambda: flashsched.run(trace="x.csv", limit=0), V, "limit"),
    ("limit str", lambda: flashsched.run(trace="x.csv", limit="10"), T, "limit"),
    ("intensity str", lambda: flashsched.run(trace="x.csv", intensity="10"), T, "intensity"),
    ("intensity negative", lambda: flashsched.run(trace="x.csv", intensity=-1), V, "intensity"),
    ("intensity inf", lambda: flashsched.run(trace="x.csv", intensity=float("inf")), V, "intens"),
    ("trace int", lambda: flashsched.run(trace=5), T, "trace"),
    ("trace bytes", lambda: flashsched.run(trace=b"x.csv"), T, "trace"),
    ("synthetic int", lambda: flashsched.run(synthetic=5), T, "synthetic"),
    ("both workloads", lambda: flashsched.run(trace="x", synthetic=SYN), V, "exactly one"),
    ("no workload", lambda: flashsched.run(device=DEV), V, "exactly one"),
    ("device int", run(device=3), T, "device"),
    ("device None", run(device=None), T, "device"),
    ("overrides int", run(overrides=5), T, "overrides"),
    ("overrides list of int", run(overrides=[1, 2]), T, "overrides[0]"),
    ("overrides dict value", run(overrides={"timing.read_us": [50]}), T, "timing.read_us"),
    ("overrides dict key", run(overrides={5: 1}), T, "keys"),
    ("host_sched int", run(host_sched=1), T, "host_sched"),
    ("device_sched list", run(device_sched=["fifo"]), T, "device_sched"),
    ("format int", run(format=1), T, "format"),
    ("time_order unknown", run(time_order="later"), V, "time_order"),
    ("check str", run(check="yes"), T, "check"),
    ("keep_records int", run(keep_records=1), T, "keep_records"),
    ("skip_bad None", run(skip_bad=None), T, "skip_bad"),
    ("progress str", run(progress="no"), T, "progress"),
    ("bin_ms zero", run(bin_ms=0), V, "bin_ms"),
    ("load_config overrides", lambda: flashsched.load_config(DEV, 5), T, "overrides"),
    ("load_config device", lambda: flashsched.load_config(5), T, "device"),
    ("detect_format int", lambda: flashsched.detect_format(5), T, "path"),
    ("scan_trace skip_bad", lambda: flashsched.scan_trace("x", skip_bad="y"), T, "skip_bad"),
    ("array ssds str", array(ssds="4"), T, "ssds"),
    ("array ssds negative", array(ssds=-1), V, "ssds"),
    ("array seed negative", array(seed=-1), V, "seed"),
    ("array phases str", array(phases="n=50"), T, "phases"),
    ("array writers short", array(phases=None, writers=(1, 2)), T, "writers"),
    ("array bin_ms str", array(bin_ms="100"), T, "bin_ms"),
    ("array queue_depth float", array(queue_depth=2.5), T, "queue_depth"),
    ("array layout int", array(layout=0), T, "layout"),
    ("sweep workers str", lambda: flashsched.sweep(SPEC, workers="2"), T, "workers"),
    ("sweep workers zero", lambda: flashsched.sweep(SPEC, workers=0), V, "workers"),
    ("sweep backend", lambda: flashsched.sweep(SPEC, backend="dask"), V, "backend"),
    ("sweep spec int", lambda: flashsched.sweep(5), T, "spec"),
    ("compare host_sched int", lambda: flashsched.compare(synthetic=SYN, host_sched=1), T, "host"),
    ("compare seed", lambda: flashsched.compare(synthetic=SYN, seed=-2), V, "seed"),
    ("compare trace int", lambda: flashsched.compare(trace=5), T, "trace"),
    ("reproduce unknown", lambda: flashsched.reproduce("nope"), V, "serial-array"),
    ("reproduce name int", lambda: flashsched.reproduce(3), T, "paper"),
    ("reproduce quick str", lambda: flashsched.reproduce("foundation", quick="y"), T, "quick"),
    ("report dir int", lambda: flashsched.report(5), T, "results_dir"),
]


def test_there_are_enough_cases() -> None:
    assert len(CALLS) >= 30


@pytest.mark.parametrize(("name", "call", "cls", "named"), CALLS, ids=[c[0] for c in CALLS])
def test_wrong_arguments_raise_flashsched_errors(
    name: str, call: Callable[[], Any], cls: type, named: str
) -> None:
    with pytest.raises(flashsched.FlashschedError) as e:
        call()
    assert isinstance(e.value, cls), f"{name}: {type(e.value).__name__}: {e.value}"
    assert isinstance(e.value, flashsched.ConfigError)
    assert isinstance(e.value, TypeError if cls is T else ValueError)
    assert named in str(e.value), str(e.value)


def test_reproduce_get_names_the_choices() -> None:
    from flashsched.reproduce import get

    with pytest.raises(flashsched.ConfigError, match="choose from foundation, amphibian"):
        get("amphibain")


def test_device_toml_syntax_error_is_a_config_error(tmp_path: Path) -> None:
    dev = tmp_path / "dev.toml"
    dev.write_text("[timing]\nread_us = 50\nprogram_us = = 3\n")
    with pytest.raises(flashsched.ConfigError, match=r"dev\.toml:3: invalid TOML"):
        flashsched.load_config(dev)
    with pytest.raises(flashsched.ConfigError):
        flashsched.run(synthetic=SYN, device=str(dev))
    assert not issubclass(flashsched.ConfigError, flashsched.TraceError)
