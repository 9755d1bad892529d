"""Resolving a sweep point into a fully specified run, keying it by a hash of
that resolved config, and executing it (the function the workers call).

The key hashes everything that determines the result: the device TOML after
overrides (which includes the schedulers and queue depth), the workload (a
trace by the SHA-256 of its contents, not its path, so moving the traces
directory does not invalidate results), the seed, the outputs asked for and
the flashsched version. Labels and output directories are not part of it.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from flashsched.sweep.spec import RunPoint

# Latency CDFs are stored as quantiles at these probabilities: dense in the
# body, then log-spaced into the tail (0.99 .. 0.9999) and the maximum.
CDF_PROBS: list[float] = sorted(
    {round(float(p), 6) for p in np.linspace(0.0, 0.99, 100)}
    | {round(1 - 10 ** (-x), 6) for x in np.linspace(2, 4, 21)}
    | {1.0}
)


@dataclass(frozen=True)
class ResolvedRun:
    """A run with its resolved device config and content key."""

    key: str
    point: RunPoint
    device_toml: str
    cdf: bool = True
    timeseries: bool = True
    #: check mode (not part of the key: it never changes results)
    check: bool = False

    def task(self) -> dict[str, Any]:
        """The picklable description a worker executes."""
        w = self.point.workload
        return {
            "key": self.key,
            "params": self.point.params(),
            "workload": w.as_dict(),
            "device": self.point.device,
            "overrides": self.point.override_strings(),
            "device_toml": self.device_toml,
            "seed": self.point.seed,
            "cdf": self.cdf,
            "timeseries": self.timeseries,
            "check": self.check,
        }


@lru_cache(maxsize=256)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def trace_digest(path: str) -> str:
    """SHA-256 of a trace file's contents (cached per path, size and mtime)."""
    st = Path(path).stat()
    return _file_sha256(str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


def run_key(point: RunPoint, device_toml: str, cdf: bool, timeseries: bool) -> str:
    """The content key of a run (16 hex digits of a SHA-256)."""
    from flashsched import _core

    wl = point.workload.as_dict()
    wl.pop("name")
    if point.workload.trace is not None:
        wl["trace"] = {"sha256": trace_digest(point.workload.trace)}
    identity = {
        "device_toml": device_toml,
        "workload": wl,
        "seed": point.seed,
        "outputs": {"cdf": cdf, "timeseries": timeseries},
        "code_version": _core.__version__,
    }
    blob = json.dumps(identity, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def resolve(
    point: RunPoint, cdf: bool = True, timeseries: bool = True, check: bool = False
) -> ResolvedRun:
    """Resolve a point's device config (validating every override; errors name
    the key) and compute its key. A missing trace raises FileNotFoundError."""
    from flashsched import _core

    if point.workload.trace is not None and not Path(point.workload.trace).is_file():
        raise FileNotFoundError(
            f"workload '{point.workload.name}': trace file not found: {point.workload.trace}"
        )
    toml = _core.load_config(point.device, point.override_strings())
    key = run_key(point, toml, cdf, timeseries)
    return ResolvedRun(key, point, toml, cdf, timeseries, check)


def _finite(values: Any) -> list[Any]:
    """JSON-safe list: NaN/inf become null."""
    return [None if isinstance(v, float) and not math.isfinite(v) else v for v in values]


def latency_cdf(records: dict[str, Any]) -> dict[str, Any]:
    cols = {n: np.asarray(col) for n, col in records.items()}
    lat = (cols["complete_ns"].astype(np.int64) - cols["arrival_ns"].astype(np.int64)) / 1e3
    out: dict[str, Any] = {"p": CDF_PROBS}
    for name, mask in (("all", None), ("read", cols["op"] == 0), ("write", cols["op"] == 1)):
        v = lat if mask is None else lat[mask]
        out[name] = [] if len(v) == 0 else np.quantile(v, CDF_PROBS).round(3).tolist()
    return out


def execute(task: dict[str, Any]) -> dict[str, Any]:
    """Run one task (from :meth:`ResolvedRun.task`) and return its result
    record. Runs in a worker process (local pool or Ray)."""
    from flashsched import _core, api
    from flashsched import summary as summaries

    w = task["workload"]
    start = time.time()
    sim = api.simulation(
        trace=w.get("trace"),
        synthetic=w.get("synthetic"),
        format=w.get("format", "auto"),
        intensity=w.get("intensity", 1.0),
        limit=w.get("limit"),
        device=task["device"],
        overrides=task["overrides"],
        seed=task["seed"],
        keep_records=task["cdf"],
        check=task.get("check", False),
        skip_bad=w.get("skip_bad", False),
        time_order=w.get("time_order", "auto"),
    )
    if sim.config_toml() != task["device_toml"]:
        raise _core.SimulationError(
            f"run {task['key']}: the simulator resolved a different config than the sweep hashed"
        )
    sim.run()
    result: dict[str, Any] = {
        "key": task["key"],
        "params": task["params"],
        "workload": w,
        "device_toml": task["device_toml"],
        "code_version": _core.__version__,
        "summary": summaries.from_sim(sim),
        "run_wall_s": round(time.time() - start, 3),
    }
    if task["cdf"]:
        result["latency_cdf"] = latency_cdf(sim.records())
    if task["timeseries"]:
        result["timeseries"] = {
            k: _finite(np.asarray(v).tolist()) for k, v in sim.timeseries().items()
        }
    return result
