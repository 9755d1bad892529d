"""The Python API: ``flashsched.run(...)`` and friends."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from flashsched import _core
from flashsched.exceptions import ConfigError
from flashsched.results import RunResult

STEPS_PER_CHUNK = 20_000


def _overrides(
    overrides: Sequence[str] | None,
    host_sched: str | None,
    device_sched: str | None,
    queue_depth: int | None,
) -> list[str]:
    out = list(overrides or [])
    if host_sched is not None:
        out.append(f"host.scheduler={host_sched}")
    if device_sched is not None:
        out.append(f"controller.scheduler={device_sched}")
    if queue_depth is not None:
        out.append(f"host.queue_depth={queue_depth}")
    return out


def simulation(
    *,
    trace: str | os.PathLike[str] | None = None,
    synthetic: str | None = None,
    device: str = "default",
    overrides: Sequence[str] | None = None,
    host_sched: str | None = None,
    device_sched: str | None = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    keep_records: bool = True,
    check: bool = False,
    skip_bad: bool = False,
    time_order: str = "clamp",
    max_memory: int | str | None = None,
) -> _core.Simulation:
    """Build (but do not run) a native simulation; see :func:`run`."""
    return _core.Simulation(
        device=str(device),
        overrides=_overrides(overrides, host_sched, device_sched, queue_depth),
        trace=None if trace is None else str(Path(trace)),
        format=format,
        intensity=intensity,
        limit=limit,
        synthetic=synthetic,
        seed=seed,
        keep_records=keep_records,
        check=check,
        skip_bad=skip_bad,
        time_order=time_order,
        max_memory=memory_limit(max_memory),
    )


def memory_limit(max_memory: int | str | None) -> str | None:
    """``max_memory`` as the core takes it: a size string (``"8GiB"``), a
    number of bytes, ``"off"``, or None (``FLASHSCHED_MAX_MEMORY``, else the
    memory available now)."""
    if max_memory is None or isinstance(max_memory, str):
        return max_memory
    if isinstance(max_memory, bool) or not isinstance(max_memory, int):
        raise ConfigError(
            f"max_memory: expected a size such as '8GiB', bytes or 'off', got {max_memory!r}"
        )
    return str(max_memory)


def drive(
    sim: _core.Simulation | _core.ArraySimulation,
    progress: bool | None = None,
    desc: str = "simulating",
) -> None:
    """Run a single-device or array simulation to the end in chunks, with a
    tqdm bar when ``progress`` (``None`` = only when stderr is a terminal)."""
    show = sys.stderr.isatty() if progress is None else progress
    if not show:
        sim.run()
        return
    from tqdm import tqdm

    done, total, _ = sim.progress()
    with tqdm(total=total, desc=desc, unit="req", unit_scale=True, mininterval=0.5) as bar:
        while not sim.advance(STEPS_PER_CHUNK):
            now_done, _, now_ns = sim.progress()
            bar.update(now_done - done)
            bar.set_postfix_str(f"t={now_ns / 1e9:.2f}s", refresh=False)
            done = now_done
        bar.update(sim.progress()[0] - done)


def run(
    *,
    trace: str | os.PathLike[str] | None = None,
    synthetic: str | None = None,
    device: str = "default",
    overrides: Sequence[str] | None = None,
    host_sched: str | None = None,
    device_sched: str | None = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    keep_records: bool = True,
    progress: bool | None = False,
    check: bool = False,
    skip_bad: bool = False,
    time_order: str = "clamp",
    max_memory: int | str | None = None,
) -> RunResult:
    """Simulate one workload on one device and return its results.

    Give exactly one of ``trace`` (a file; ``format`` auto-detected unless
    named; ``intensity`` multiplies the arrival rate; ``limit`` caps requests)
    or ``synthetic`` (a spec such as ``"read=0.7,bs=4k-16k,iops=20000,n=100000"``).
    ``device`` is a preset name or a TOML file; ``overrides`` are
    ``"section.key=value"`` strings applied on top. ``check`` turns on the
    version oracle and invariant checks (docs/reliability.md): a violation
    raises :class:`flashsched.SimulationError` naming the request, page and
    versions.


    Trace input (docs/reliability.md): a malformed line raises ``TraceError``
    naming ``file:line``; ``skip_bad=True`` skips such lines instead and
    counts them in ``summary["input"]``. ``time_order`` is ``"clamp"``
    (a record earlier than its predecessor is issued at the predecessor's
    time, counted), ``"reject"`` (such a record is a bad line) or ``"sort"``
    (records are reordered by time within a 4096-record window; for
    blkparse output, which lists per-CPU batches one after the other).

    Memory (docs/reliability.md): before anything is built, the run's memory
    is estimated from the geometry and features (mapping tables, per-block
    state, cache, check mode, per-request records when their number is
    known) and held to ``max_memory`` (``"8GiB"``, bytes, ``"off"``; default:
    ``FLASHSCHED_MAX_MEMORY``, else the memory available now). Above it,
    :class:`flashsched.MemoryLimitError` names the geometry, the estimate and
    the limit; per-request records that outgrow it during the run raise it
    too.
    """
    sim = simulation(
        trace=trace,
        synthetic=synthetic,
        device=device,
        overrides=overrides,
        host_sched=host_sched,
        device_sched=device_sched,
        queue_depth=queue_depth,
        format=format,
        intensity=intensity,
        limit=limit,
        seed=seed,
        keep_records=keep_records,
        check=check,
        skip_bad=skip_bad,
        time_order=time_order,
        max_memory=max_memory,
    )
    drive(sim, progress)
    return RunResult.from_sim(sim)
