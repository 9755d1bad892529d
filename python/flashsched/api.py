"""The Python API: ``flashsched.run(...)`` and friends."""

from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from flashsched import _core
from flashsched import arguments as A

if TYPE_CHECKING:
    from flashsched.results import RunResult

STEPS_PER_CHUNK = 20_000
TIME_ORDERS = ("auto", "clamp", "reject", "sort")

#: Config overrides: ``"section.key=value"`` strings or ``{"section.key": value}``.
Overrides = Union[Sequence[str], Mapping[str, Any], None]


def _overrides(
    overrides: Overrides,
    host_sched: str | None,
    device_sched: str | None,
    queue_depth: int | None,
) -> list[str]:
    out = A.overrides(overrides)
    if host_sched is not None:
        out.append(f"host.scheduler={A.text('host_sched', host_sched)}")
    if device_sched is not None:
        out.append(f"controller.scheduler={A.text('device_sched', device_sched)}")
    if queue_depth is not None:
        out.append(f"host.queue_depth={A.integer('queue_depth', queue_depth, 1)}")
    return out


def device_arg(device: Any) -> str:
    """A preset name or a device file (str or path)."""
    return A.path("device", device)


def simulation(
    *,
    trace: str | os.PathLike[str] | None = None,
    synthetic: str | None = None,
    device: str = "default",
    overrides: Overrides = None,
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
    time_order: str = "auto",
    max_memory: int | str | None = None,
    records_held: int | None = None,
) -> _core.Simulation:
    """Build (but do not run) a native simulation; see :func:`run`.
    ``records_held``: the caller drains per-request rows as the run goes
    (``take_records``) and holds at most this many at once."""
    if (trace is None) == (synthetic is None):
        raise A.ArgumentValueError("give exactly one of `trace` or `synthetic`")
    dev, spec, imported = _imported(device_arg(device), A.optional_text("synthetic", synthetic))
    ov = imported + _overrides(overrides, host_sched, device_sched, queue_depth)
    if trace is not None and str(trace) == "-":
        _warn_no_prepass(dev, ov)
    return _core.Simulation(
        device=dev,
        overrides=ov,
        trace=A.optional_path("trace", trace),
        format=A.text("format", format),
        intensity=A.number("intensity", intensity, positive=True),
        limit=A.optional_integer("limit", limit, 1),
        synthetic=spec,
        seed=A.integer("seed", seed),
        keep_records=A.flag("keep_records", keep_records),
        check=A.flag("check", check),
        skip_bad=A.flag("skip_bad", skip_bad),
        time_order=A.one_of("time_order", time_order, TIME_ORDERS),
        max_memory=A.memory_size("max_memory", max_memory),
        records_held=A.optional_integer("records_held", records_held, 1),
    )


def _toml() -> Any:
    """The TOML reader (``tomllib``, or ``tomli`` before Python 3.11)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    return tomllib


def _warn_no_prepass(device: str, overrides: list[str]) -> None:
    """Warn that SSDsim's trace pre-pass (``ftl.update_reads = "ssdsim"``)
    cannot read a trace on standard input (docs/model.md, Partial pages)."""
    try:
        cfg = _core.load_config(device, overrides)
    except Exception:  # noqa: BLE001 - the build reports a bad config itself
        return
    if _toml().loads(cfg).get("ftl", {}).get("update_reads") == "ssdsim":
        warnings.warn(
            'ftl.update_reads = "ssdsim": a trace on standard input cannot be read before '
            "the run (SSDsim's pre-pass), so each read marks its sectors valid when it is "
            "submitted; a write before a read of its page's other sectors then needs no "
            "update read. Give the trace as a file for SSDsim's behaviour.",
            stacklevel=3,
        )


def _imported(device: str, synthetic: str | None) -> tuple[str, str | None, list[str]]:
    """An MQSim/SSDsim device file or a fio job file, converted
    (docs/importers.md): the device and spec to run, the overrides they
    imply; what did not carry over exactly is printed to stderr."""
    names_file = synthetic is not None and Path(synthetic.rsplit(":", 1)[0]).is_file()
    if not Path(device).is_file() and not names_file:
        return device, synthetic, []
    from flashsched import importers

    source = device
    device, over, warnings = importers.resolve_device(device)
    if over:
        warnings = [f"{source}: converted onto the `default` preset", *warnings]
    if synthetic is not None:
        synthetic, more, notes = importers.resolve_synthetic(synthetic)
        over, warnings = over + more, warnings + notes
    for w in warnings:
        print(f"flashsched: import: {w}", file=sys.stderr)
    return device, synthetic, over


def drive(
    sim: _core.Simulation | _core.ArraySimulation,
    progress: bool | None = None,
    desc: str = "simulating",
    between: Callable[[], None] | None = None,
) -> None:
    """Run a single-device or array simulation to the end in chunks, with a
    tqdm bar when ``progress`` (``None`` = only when stderr is a terminal),
    calling ``between`` after every chunk."""
    if not _shows_progress(progress):
        if between is None:
            sim.run()
            return
        while not sim.advance(STEPS_PER_CHUNK):
            between()
        return
    from tqdm import tqdm

    done, total, _ = sim.progress()
    with tqdm(total=total, desc=desc, unit="req", unit_scale=True, mininterval=0.5) as bar:
        while not sim.advance(STEPS_PER_CHUNK):
            if between is not None:
                between()
            now_done, _, now_ns = sim.progress()
            bar.update(now_done - done)
            bar.set_postfix_str(f"t={now_ns / 1e9:.2f}s", refresh=False)
            done = now_done
        bar.update(sim.progress()[0] - done)


def _shows_progress(progress: bool | None) -> bool:
    """Whether a run shows a progress bar (``None``: when stderr is a
    terminal)."""
    flag = A.optional_flag("progress", progress)
    return sys.stderr.isatty() if flag is None else flag


def run(
    *,
    trace: str | os.PathLike[str] | None = None,
    synthetic: str | None = None,
    device: str = "default",
    overrides: Overrides = None,
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
    time_order: str = "auto",
    bin_ms: float | None = None,
    max_memory: int | str | None = None,
    records_to: str | os.PathLike[str] | None = None,
) -> RunResult:
    """Simulate one workload on one device and return its results.

    Give exactly one of ``trace`` (a file, ``"-"`` for standard input,
    possibly gzip/zstd/xz/bzip2-compressed; ``format`` auto-detected unless
    named, or a column mapping such as ``"csv:time=0:ms,op=3:R/W,offset=4:B,size=5:B"``
    or a ``.toml`` file holding one; ``intensity`` multiplies the arrival
    rate; ``limit`` caps requests)
    or ``synthetic`` (a spec such as ``"read=0.7,bs=4k-16k,iops=20000,n=100000"``).
    ``device`` is a preset name or a TOML file (or an MQSim ``ssdconfig.xml``
    / SSDsim ``page.parameters``, converted; ``synthetic`` may be a fio job
    file, ``job.fio`` or ``job.fio:NAME``; docs/importers.md); ``overrides``
    are ``"section.key=value"`` strings, or a mapping such as
    ``{"timing.read_us": 50}``, applied on top. ``check`` turns on the
    version oracle and invariant checks (docs/reliability.md): a violation
    raises :class:`flashsched.SimulationError` naming the request, page and
    versions.


    Trace input (docs/reliability.md): a malformed line raises ``TraceError``
    naming ``file:line``; ``skip_bad=True`` skips such lines instead and
    counts them in ``summary["input"]``. ``time_order`` is ``"auto"`` (the
    default: ``"sort"`` for blkparse, ``"clamp"`` for every other format),
    ``"clamp"`` (a record earlier than its predecessor is issued at the predecessor's
    time, counted), ``"reject"`` (such a record is a bad line) or ``"sort"``
    (records are reordered by time within a 4096-record window; for
    blkparse output, which lists per-CPU batches one after the other).

    ``bin_ms`` sets the width of the result's time-series bins (default the
    core's 1 s bins); it keeps per-request records, which the bins are
    computed from. The series list only the bins in which something
    completed (idle simulated time costs no memory).

    Memory (docs/reliability.md): before anything is built, the run's memory
    is estimated from the geometry and features (mapping tables, per-block
    state, caches, check mode, per-request records when their number is
    known) and held to ``max_memory`` (``"8GiB"``, bytes, ``"off"``; default:
    ``FLASHSCHED_MAX_MEMORY``, else the memory available now). Above it,
    :class:`flashsched.MemoryLimitError` names the geometry, the estimate and
    the limit; per-request records that outgrow it during the run raise it
    too.

    ``records_to`` (a ``.parquet`` path) streams the per-request rows to
    that file in row groups as the run goes (encoded on a second thread),
    so memory holds a few groups of them whatever the run's length
    (the estimate counts only those); ``res.requests`` then reads the file
    back, and ``bin_ms`` series are summed as the rows pass.
    """
    if bin_ms is not None:
        A.number("bin_ms", bin_ms, positive=True)
        keep_records = True
    if records_to is not None:
        from flashsched.records_stream import ROWS_HELD, RecordStream

        records_to = A.path("records_to", records_to)
        keep_records = True
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
        records_held=None if records_to is None else ROWS_HELD,
    )
    width = 1000.0 if bin_ms is None else float(bin_ms)
    if records_to is None:
        # The result's module is imported beside the run (the core releases
        # the GIL), not before it; with `records_to` the writer thread does.
        threading.Thread(target=_import_results, name="flashsched-import", daemon=True).start()
        drive(sim, progress)
        from flashsched.results import RunResult

        return RunResult.from_sim(sim, width)
    stream = RecordStream(records_to, bin_ms=bin_ms)
    try:
        if _shows_progress(progress):
            drive(sim, True, between=lambda: stream.maybe_drain(sim))
            stream.drain(sim)
        else:
            # Back in Python once per row group, not per chunk of steps:
            # each return takes the GIL, which the writer thread (and
            # pyarrow's import, early on) may hold (SSDsim x100: ~0.05 s).
            stream.follow(sim)
        stream.close()
    except BaseException:
        stream.abandon()
        raise
    from flashsched.results import RunResult

    return RunResult.from_sim(sim, width, stream)


def _import_results() -> None:
    import flashsched.results  # noqa: F401


def load_config(device: str | os.PathLike[str] = "default", overrides: Overrides = None) -> str:
    """The resolved, validated device config (TOML text) of a preset or
    device file with ``overrides`` applied."""
    return _core.load_config(device_arg(device), A.overrides(overrides))


def memory_estimate(
    device: str | os.PathLike[str] = "default",
    overrides: Overrides = None,
    check: bool = False,
    requests: int | None = None,
    ssds: int = 1,
) -> dict[str, Any]:
    """The memory a run of ``ssds`` copies of ``device`` would allocate,
    estimated before building (docs/reliability.md): ``{"peak": bytes,
    "what": the geometry, "parts": [(name, bytes)], "breakdown": text}``;
    ``check`` adds check mode's tables, ``requests`` that many per-request
    rows."""
    return _core.memory_estimate(
        device_arg(device),
        A.overrides(overrides),
        check=A.flag("check", check),
        requests=A.optional_integer("requests", requests),
        ssds=A.integer("ssds", ssds, 1, 2**32 - 1),
    )


def detect_format(path: str | os.PathLike[str]) -> str:
    """The trace format auto-detection picks for ``path`` (``"-"``: standard
    input, which is consumed)."""
    return _core.detect_format(A.path("path", path))


def scan_trace(
    path: str | os.PathLike[str],
    format: str = "auto",
    skip_bad: bool = False,
    time_order: str = "auto",
) -> dict[str, Any]:
    """Read a whole trace without simulating it: its input accounting
    (lines, records, bad lines, ..., the time order in force and what was
    done to decode it) as the summary's ``input`` section."""
    return _core.scan_trace(
        A.path("path", path),
        format=A.text("format", format),
        skip_bad=A.flag("skip_bad", skip_bad),
        time_order=A.one_of("time_order", time_order, TIME_ORDERS),
    )
