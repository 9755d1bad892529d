"""A sweep's results directory: one JSON per finished run (``runs/KEY.json``)
and the tidy table (``results.parquet``, one row per run).

Every file is written to a temporary name in the same directory and then
``os.replace``d, so a killed sweep leaves either a complete file or none:
a run is finished exactly when its JSON exists, which is what resume relies on.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched.summary import upgrade

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RUNS = "runs"
TABLE = "results.parquet"
SPEC_COPY = "sweep.toml"
MANIFEST = "sweep.json"


@functools.cache
def _umask() -> int:
    """The process umask, read without changing it where Linux allows
    (``os.umask`` sets it, racing other threads)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    old = os.umask(0o022)
    os.umask(old)
    return old


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temp file and ``os.replace``. The
    file gets the permissions ``open()`` would give (0644 under the usual
    umask), not the temp file's private 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        if hasattr(os, "fchmod"):  # POSIX
            os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode())


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested dicts to dotted keys (``latency_us.p99``); lists are dropped
    (per-chip vectors stay in the per-run JSON)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, f"{name}."))
        elif not isinstance(v, (list, tuple)):
            out[name] = v
    return out


class ResultStore:
    """Reads and writes one sweep's results directory."""

    def __init__(self, out: str | os.PathLike[str]) -> None:
        self.dir = Path(out)
        self.runs_dir = self.dir / RUNS

    def run_path(self, key: str) -> Path:
        return self.runs_dir / f"{key}.json"

    def done_keys(self) -> set[str]:
        """Keys of finished runs (temp files of interrupted writes are ignored)."""
        if not self.runs_dir.is_dir():
            return set()
        return {p.stem for p in self.runs_dir.glob("*.json") if not p.name.startswith(".")}

    def clean_temp(self) -> int:
        """Remove temp files left by a killed sweep; returns how many."""
        n = 0
        for p in self.dir.rglob(".*.tmp"):
            p.unlink(missing_ok=True)
            n += 1
        return n

    def write_run(self, result: Mapping[str, Any]) -> None:
        atomic_write_text(self.run_path(result["key"]), json.dumps(result, indent=1))

    def load_run(self, key: str) -> dict[str, Any]:
        return json.loads(self.run_path(key).read_text())

    def table(self, runs: Iterable[tuple[str, Mapping[str, Any] | None]]) -> pd.DataFrame:
        """One row per finished run among ``runs`` (key, params; in that order):
        key, every parameter, every flattened summary metric, the run's wall
        time. Given params (the current spec's names and labels) replace the
        stored ones, so a resumed sweep may rename workloads or labels."""
        rows = []
        for key, params in runs:
            if not self.run_path(key).exists():
                continue
            rows.append(run_row(self.load_run(key), params))
        return frame(rows)

    def write_table(self, df: pd.DataFrame) -> Path:
        path = self.dir / TABLE
        atomic_write_bytes(path, df.to_parquet(index=False))
        return path

    def read_table(self) -> pd.DataFrame:
        return pd.read_parquet(self.dir / TABLE)


def run_row(r: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A run record as one table row. Parameters left at the device's default
    (schedulers, queue depth) are filled in from the resolved config; the
    summary's own copies of the parameters are not repeated."""
    params = upgrade(dict(r["params"] if params is None else params))
    summary = flatten(upgrade(dict(r["summary"])))
    for k in ("host_sched", "device_sched"):
        if params.get(k) is None:
            params[k] = summary.get(k)
    if params.get("queue_depth") is None:
        host = tomllib.loads(r["device_toml"]).get("host", {})
        params["queue_depth"] = host.get("queue_depth")
    row: dict[str, Any] = {"key": r["key"], **params}
    row["workload_spec"] = summary.pop("workload", None)
    for k, v in summary.items():
        row.setdefault(k, v)
    row["run_wall_s"] = r.get("run_wall_s")
    return row


def column_dtype(values: Iterable[Any]) -> str | None:
    """The dtype of a table column from the Python types of its values, so
    it does not depend on which runs lack the column: integers (counts,
    queue depths) stay integers (``int64``, or the nullable ``Int64`` when
    some runs lack them, never float64), booleans stay booleans (``bool`` /
    ``boolean``), numbers are ``float64``; a column mixing strings and
    numbers (an axis given both ways) becomes strings (``"str"``); None =
    leave as is."""
    values = list(values)
    present = [v for v in values if v is not None and not (isinstance(v, float) and v != v)]
    kinds = {type(v) for v in present}
    gaps = len(present) < len(values)
    if not kinds:
        return None
    if kinds == {bool}:
        return "boolean" if gaps else "bool"
    if kinds == {int}:
        return "Int64" if gaps else "int64"
    if kinds <= {int, float}:
        return "float64"
    if len(kinds) > 1:
        return "str"
    return None


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows as a DataFrame, each column of its :func:`column_dtype` (decided
    from the values before pandas fills gaps with NaN)."""
    names = list(dict.fromkeys(k for r in rows for k in r))
    data = {}
    for c in names:
        values = [r.get(c) for r in rows]
        kind = column_dtype(values)
        if kind == "str":
            data[c] = pd.Series([None if v is None else str(v) for v in values], dtype=object)
        else:
            data[c] = pd.Series(values, dtype=kind)
    return pd.DataFrame(data, index=range(len(rows)))
