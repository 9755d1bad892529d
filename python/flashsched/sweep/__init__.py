"""Parameter sweeps: expand a spec into runs, skip the ones already finished,
execute the rest (local process pool or Ray) and collect one tidy table.

>>> import flashsched
>>> df = flashsched.sweep("experiments/example-sweep.toml", out="results/example")  # doctest: +SKIP
>>> df.groupby("host_sched")["latency_us.mean"].mean()                          # doctest: +SKIP
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import arguments as A
from flashsched.exceptions import SimulationError
from flashsched.sweep.backends import BACKENDS, default_workers, run_local, run_ray
from flashsched.sweep.runs import ResolvedRun, execute, resolve
from flashsched.sweep.spec import RunPoint, SweepSpec, Workload, load_spec, parse_spec
from flashsched.sweep.store import MANIFEST, SPEC_COPY, ResultStore, atomic_write_text


def as_spec(spec: Any, traces: str | os.PathLike[str] | None = None) -> SweepSpec:
    """A :class:`SweepSpec` from a TOML path, a parsed dict or a spec."""
    if isinstance(spec, SweepSpec):
        s = spec
    elif isinstance(spec, Mapping):
        s = parse_spec(spec)
    else:
        s = load_spec(A.path("spec", spec))
    return s.with_traces_dir(traces)


def plan(spec: Any, traces: str | os.PathLike[str] | None = None) -> list[ResolvedRun]:
    """Every run of ``spec``, resolved and keyed (validates every override and
    trace path before anything runs). Duplicate configs appear once."""
    s = as_spec(spec, traces)
    runs: list[ResolvedRun] = []
    seen: set[str] = set()
    for p in s.expand():
        r = resolve(p, cdf=s.cdf, timeseries=s.timeseries, check=s.check)
        if r.key not in seen:
            seen.add(r.key)
            runs.append(r)
    return runs


def versions() -> dict[str, str]:
    """Versions of flashsched and the libraries a result depends on."""
    import matplotlib
    import numpy
    import pyarrow

    from flashsched import _core

    return {
        "flashsched": _core.__version__,
        "python": sys.version.split()[0],
        "numpy": numpy.__version__,
        "pandas": pd.__version__,
        "pyarrow": pyarrow.__version__,
        "matplotlib": matplotlib.__version__,
        "platform": platform.platform(),
    }


def _write_manifest(store: ResultStore, s: SweepSpec, runs: list[ResolvedRun]) -> None:
    manifest = {
        "name": s.name,
        "description": s.description,
        "source": s.source,
        "keys": [r.key for r in runs],
        "workloads": {n: w.as_dict() for n, w in s.workloads.items()},
        "seeds": sorted({r.point.seed for r in runs}),
        "versions": versions(),
    }
    atomic_write_text(store.dir / MANIFEST, json.dumps(manifest, indent=1))
    if s.source and Path(s.source).is_file():
        atomic_write_text(store.dir / SPEC_COPY, Path(s.source).read_text())


def sweep(
    spec: Any,
    out: str | os.PathLike[str] | None = None,
    *,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    traces: str | os.PathLike[str] | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Run a sweep and return its table (one row per run).

    ``spec`` is a TOML file, a dict with the same structure, or a
    :class:`SweepSpec`. Results go to ``out`` (default ``results/<name>``):
    ``runs/KEY.json`` per run and ``results.parquet``. Runs whose JSON already
    exists are skipped, so re-running resumes an interrupted sweep.
    ``backend`` is ``"local"`` (``workers`` processes, default one per core)
    or ``"ray"`` (``address`` of a cluster, default a local Ray instance).
    ``traces`` is the directory relative trace paths are resolved against.

    The returned DataFrame's ``attrs`` hold ``executed`` and ``skipped``
    (lists of keys) and ``out`` (the results directory). If some runs fail,
    the others are kept and a ``SimulationError`` lists the failures.
    """
    A.one_of("backend", backend, BACKENDS)
    A.optional_integer("workers", workers, 1)
    A.optional_text("address", address)
    A.optional_flag("progress", progress)
    out = A.optional_path("out", out)
    s = as_spec(spec, A.optional_path("traces", traces))
    runs = plan(s)
    store = ResultStore(out if out is not None else Path("results") / s.name)
    store.dir.mkdir(parents=True, exist_ok=True)
    store.clean_temp()
    _write_manifest(store, s, runs)
    done = store.done_keys()
    todo = [r for r in runs if r.key not in done]
    tasks = [r.task() for r in todo]
    desc = f"sweep {s.name}"
    try:
        if backend == "ray":
            failures = run_ray(
                tasks, store.write_run, address=address, progress=progress, desc=desc
            )
        else:
            failures = run_local(
                tasks, store.write_run, workers=workers, progress=progress, desc=desc
            )
    finally:
        df = store.table((r.key, r.point.params()) for r in runs)
        store.write_table(df)
    df.attrs.update(
        executed=[r.key for r in todo if store.run_path(r.key).exists()],
        skipped=[r.key for r in runs if r.key in done],
        out=str(store.dir),
    )
    if failures:
        lines = "\n".join(f"  {k}: {msg}" for k, msg in failures)
        raise SimulationError(f"{len(failures)} of {len(runs)} runs failed:\n{lines}")
    return df


def load(out: str | os.PathLike[str]) -> pd.DataFrame:
    """The table of a finished (or partial) sweep directory."""
    return ResultStore(out).read_table()


__all__ = [
    "sweep",
    "plan",
    "load",
    "as_spec",
    "versions",
    "execute",
    "resolve",
    "load_spec",
    "parse_spec",
    "SweepSpec",
    "RunPoint",
    "ResolvedRun",
    "Workload",
    "ResultStore",
    "default_workers",
]
