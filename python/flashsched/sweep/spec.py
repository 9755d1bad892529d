"""Sweep specifications: the TOML schema, strict validation and grid expansion.

A spec names workloads, fixed settings (``[base]``), a Cartesian ``[grid]`` of
axes and an optional list of ``[[points]]`` (explicit combinations crossed
with the grid). Every key is checked: an unknown key is a ``ConfigError``
naming it and where it appeared. The schema is documented in docs/sweeps.md.
"""

from __future__ import annotations

import itertools
import os
import sys
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from flashsched.exceptions import ConfigError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

# Axis names understood in [base], [grid] and [[points]] besides any dotted
# device-config key ("section.key", applied as an override).
AXES = ("device", "workload", "host_sched", "device_sched", "queue_depth", "seed", "label")
# Old axis names, still read (with a DeprecationWarning): docs/vocabulary.md.
OLD_AXES = {"host_scheduler": "host_sched", "device_scheduler": "device_sched"}
TOP_KEYS = {"name", "description", "base", "workloads", "grid", "points", "output"}
WORKLOAD_KEYS = {
    "trace",
    "format",
    "intensity",
    "limit",
    "synthetic",
    "description",
    "skip_bad",
    "time_order",
}
TRACE_ONLY_KEYS = {"format", "intensity", "limit", "skip_bad", "time_order"}
TIME_ORDERS = ("auto", "clamp", "reject", "sort")
OUTPUT_KEYS = {"cdf", "timeseries", "check"}
BASE_EXTRA = {"set"}


@dataclass(frozen=True)
class Workload:
    """One named workload: a trace file (with format/intensity/limit) or a synthetic spec."""

    name: str
    trace: str | None = None
    format: str = "auto"
    intensity: float = 1.0
    limit: int | None = None
    synthetic: str | None = None
    description: str = ""
    #: trace input policies (docs/reliability.md); only non-defaults are
    #: part of a run's identity, so existing sweeps keep their keys
    skip_bad: bool = False
    time_order: str = "auto"

    def as_dict(self) -> dict[str, Any]:
        if self.synthetic is not None:
            return {"name": self.name, "synthetic": self.synthetic}
        d: dict[str, Any] = {
            "name": self.name,
            "trace": self.trace,
            "format": self.format,
            "intensity": self.intensity,
            "limit": self.limit,
        }
        if self.skip_bad:
            d["skip_bad"] = True
        if self.time_order != "auto":
            d["time_order"] = self.time_order
        return d


@dataclass(frozen=True)
class RunPoint:
    """One run of a sweep before its device config is resolved."""

    workload: Workload
    device: str = "default"
    overrides: tuple[tuple[str, Any], ...] = ()
    host_sched: str | None = None
    device_sched: str | None = None
    queue_depth: int | None = None
    seed: int = 42
    label: str = ""

    def override_strings(self) -> list[str]:
        """The ``section.key=value`` strings the core understands, in axis order."""
        out = [f"{k}={_toml_value(v)}" for k, v in self.overrides]
        if self.host_sched is not None:
            out.append(f"host.scheduler={self.host_sched}")
        if self.device_sched is not None:
            out.append(f"controller.scheduler={self.device_sched}")
        if self.queue_depth is not None:
            out.append(f"host.queue_depth={self.queue_depth}")
        return out

    def params(self) -> dict[str, Any]:
        """The parameters as table columns (overrides under their dotted names)."""
        p: dict[str, Any] = {
            "label": self.label,
            "workload": self.workload.name,
            "device": self.device,
            "host_sched": self.host_sched,
            "device_sched": self.device_sched,
            "queue_depth": self.queue_depth,
            "seed": self.seed,
        }
        p.update(dict(self.overrides))
        return p


@dataclass
class SweepSpec:
    """A parsed, validated sweep specification."""

    name: str
    workloads: dict[str, Workload]
    base: dict[str, Any] = field(default_factory=dict)
    base_set: list[str] = field(default_factory=list)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    description: str = ""
    cdf: bool = True
    timeseries: bool = True
    #: run every simulation in check mode (version oracle + invariants)
    check: bool = False
    source: str = ""
    base_dir: Path | None = None
    traces_dir: Path | None = None

    def trace_path(self, trace: str) -> str:
        """Where a workload's trace file is: absolute paths as given, relative
        ones under the traces directory if one was set, else under the spec's
        directory."""
        p = Path(trace)
        if p.is_absolute():
            return str(p)
        root = self.traces_dir or self.base_dir
        return str(root / p) if root is not None else str(p)

    def device_path(self, device: str) -> str:
        """A device TOML file named relative to the spec is found next to it;
        preset names and other paths are passed on unchanged."""
        if (
            device.endswith(".toml")
            and self.base_dir is not None
            and not Path(device).is_absolute()
        ):
            p = self.base_dir / device
            if p.is_file():
                return str(p)
        return device

    def expand(self) -> list[RunPoint]:
        """Every run: the product of the grid axes, crossed with the points."""
        axes = list(self.grid)
        # Without a workload axis every workload runs (a point naming one pins it).
        if "workload" not in self.grid and "workload" not in self.base:
            axes = ["workload", *axes]
        values = [self.grid.get(a, list(self.workloads)) for a in axes]
        runs: list[RunPoint] = []
        seen: set[RunPoint] = set()
        for combo in itertools.product(*values):
            for point in self.points or [{}]:
                merged = {**self.base, **dict(zip(axes, combo)), **point}
                rp = self._point(merged)
                if rp not in seen:  # the same run listed twice runs once
                    seen.add(rp)
                    runs.append(rp)
        return runs

    def _point(self, merged: Mapping[str, Any]) -> RunPoint:
        wname = merged.get("workload")
        if wname is None:
            if len(self.workloads) != 1:
                raise ConfigError(f"sweep '{self.name}': no workload chosen for a run")
            wname = next(iter(self.workloads))
        if wname not in self.workloads:
            raise ConfigError(
                f"sweep '{self.name}': unknown workload '{wname}' "
                f"(defined: {', '.join(self.workloads)})"
            )
        base_over = [_split_set(s, "base.set") for s in self.base_set]
        overrides = tuple(base_over + [(k, v) for k, v in merged.items() if "." in k])
        wl = self.workloads[wname]
        if wl.trace is not None:
            wl = replace(wl, trace=self.trace_path(wl.trace))
        return RunPoint(
            workload=wl,
            device=self.device_path(str(merged.get("device", "default"))),
            overrides=overrides,
            host_sched=merged.get("host_sched"),
            device_sched=merged.get("device_sched"),
            queue_depth=merged.get("queue_depth"),
            seed=int(merged.get("seed", 42)),
            label=str(merged.get("label", "")),
        )

    def with_traces_dir(self, traces: str | os.PathLike[str] | None) -> SweepSpec:
        """A copy whose relative trace paths are resolved against ``traces``."""
        if traces is None:
            return self
        return replace(self, traces_dir=Path(traces))


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _split_set(s: Any, where: str) -> tuple[str, Any]:
    if not isinstance(s, str) or "=" not in s:
        raise ConfigError(f"{where}: expected 'section.key=value', got {s!r}")
    k, v = s.split("=", 1)
    return k.strip(), v.strip()


def _renamed(table: Mapping[str, Any], where: str) -> dict[str, Any]:
    """``table`` with old axis names replaced by today's (warning once per key)."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where}: expected a table, got {table!r}")
    out = {}
    for k, v in table.items():
        new = OLD_AXES.get(k)
        if new is not None:
            warnings.warn(
                f"{where}.{k} is an old name; use {new} (docs/vocabulary.md)",
                DeprecationWarning,
                stacklevel=4,
            )
            if new in table:
                raise ConfigError(f"{where}: both '{k}' and '{new}' given (the same axis)")
            k = new
        out[k] = v
    return out


def _check_keys(table: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
    allowed = set(allowed)
    for k in table:
        if k not in allowed and "." not in k:
            raise ConfigError(
                f"{where}: unknown key '{k}' (known: {', '.join(sorted(allowed))}, "
                "or a device config key such as 'ftl.gc_policy')"
            )


def _check_strict(table: Mapping[str, Any], allowed: set[str], where: str) -> None:
    for k in table:
        if k not in allowed:
            raise ConfigError(f"{where}: unknown key '{k}' (known: {', '.join(sorted(allowed))})")


def _axis_value(k: str, v: Any, where: str) -> Any:
    scalar = (str, int, float, bool)
    if not isinstance(v, scalar):
        raise ConfigError(f"{where}.{k}: expected a string, number or boolean, got {v!r}")
    if k in ("queue_depth", "seed") and (isinstance(v, bool) or not isinstance(v, int)):
        raise ConfigError(f"{where}.{k}: expected an integer, got {v!r}")
    if k in ("device", "workload", "host_sched", "device_sched", "label") and not (
        isinstance(v, str)
    ):
        raise ConfigError(f"{where}.{k}: expected a string, got {v!r}")
    return v


def _parse_workload(name: str, t: Any) -> Workload:
    where = f"workloads.{name}"
    if not isinstance(t, dict):
        raise ConfigError(f"{where}: expected a table")
    _check_strict(t, WORKLOAD_KEYS, where)
    if ("trace" in t) == ("synthetic" in t):
        raise ConfigError(f"{where}: give exactly one of 'trace' or 'synthetic'")
    if "synthetic" in t and set(t) & TRACE_ONLY_KEYS:
        keys = ", ".join(f"'{k}'" for k in sorted(TRACE_ONLY_KEYS))
        raise ConfigError(f"{where}: {keys} apply to traces only")
    skip_bad = t.get("skip_bad", False)
    if not isinstance(skip_bad, bool):
        raise ConfigError(f"{where}.skip_bad: expected true or false, got {skip_bad!r}")
    time_order = t.get("time_order", "auto")
    if time_order not in TIME_ORDERS:
        raise ConfigError(
            f"{where}.time_order: expected one of {', '.join(TIME_ORDERS)}, got {time_order!r}"
        )
    intensity = t.get("intensity", 1.0)
    if not isinstance(intensity, (int, float)) or isinstance(intensity, bool) or intensity <= 0:
        raise ConfigError(f"{where}.intensity: expected a positive number, got {intensity!r}")
    limit = t.get("limit")
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ConfigError(f"{where}.limit: expected a positive integer, got {limit!r}")
    return Workload(
        name=name,
        trace=t.get("trace"),
        format=str(t.get("format", "auto")),
        intensity=float(intensity),
        limit=limit,
        synthetic=t.get("synthetic"),
        description=str(t.get("description", "")),
        skip_bad=skip_bad,
        time_order=time_order,
    )


def parse_spec(
    data: Mapping[str, Any], source: str = "<dict>", base_dir: Path | None = None
) -> SweepSpec:
    """Validate a spec given as a dict (the parsed TOML) and return it."""
    _check_strict(data, TOP_KEYS, source)
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ConfigError(f"{source}: 'name' (a non-empty string) is required")
    wl_table = data.get("workloads")
    if not isinstance(wl_table, dict) or not wl_table:
        raise ConfigError(f"{source}: at least one [workloads.NAME] table is required")
    workloads = {n: _parse_workload(n, t) for n, t in wl_table.items()}

    base = _renamed(data.get("base", {}), "base")
    _check_keys(base, (*AXES, *BASE_EXTRA), "base")
    base_set = base.pop("set", [])
    if not isinstance(base_set, list):
        raise ConfigError("base.set: expected a list of 'section.key=value' strings")
    base = {k: _axis_value(k, v, "base") for k, v in base.items()}

    grid = data.get("grid", {})
    if not isinstance(grid, dict):
        raise ConfigError("grid: expected a table of axis = [values]")
    grid = _renamed(grid, "grid")
    _check_keys(grid, AXES, "grid")
    parsed_grid: dict[str, list[Any]] = {}
    for k, vals in grid.items():
        if not isinstance(vals, list) or not vals:
            raise ConfigError(f"grid.{k}: expected a non-empty list of values")
        parsed_grid[k] = [_axis_value(k, v, "grid") for v in vals]

    points = data.get("points", [])
    if not isinstance(points, list):
        raise ConfigError("points: expected an array of tables ([[points]])")
    parsed_points = []
    for i, p in enumerate(points):
        if not isinstance(p, dict):
            raise ConfigError(f"points[{i}]: expected a table")
        p = _renamed(p, f"points[{i}]")
        _check_keys(p, AXES, f"points[{i}]")
        parsed_points.append({k: _axis_value(k, v, f"points[{i}]") for k, v in p.items()})

    out = data.get("output", {})
    _check_strict(out, OUTPUT_KEYS, "output")
    for k, v in out.items():
        if not isinstance(v, bool):
            raise ConfigError(f"output.{k}: expected true or false, got {v!r}")

    for axis in ("workload",):
        for v in parsed_grid.get(axis, []) + [p[axis] for p in parsed_points if axis in p]:
            if v not in workloads:
                raise ConfigError(
                    f"{source}: unknown workload '{v}' (defined: {', '.join(workloads)})"
                )
    return SweepSpec(
        name=data["name"],
        description=str(data.get("description", "")),
        workloads=workloads,
        base=base,
        base_set=[str(s) for s in base_set],
        grid=parsed_grid,
        points=parsed_points,
        cdf=out.get("cdf", True),
        timeseries=out.get("timeseries", True),
        check=out.get("check", False),
        source=source,
        base_dir=base_dir,
    )


def load_spec(path: str | os.PathLike[str]) -> SweepSpec:
    """Read and validate a sweep spec TOML file (relative trace paths are
    taken relative to the file's directory unless a traces directory is set
    with :meth:`SweepSpec.with_traces_dir`)."""
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: {e}") from None
    return parse_spec(data, source=str(p), base_dir=p.parent)
