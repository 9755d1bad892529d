"""The validation data: for each peer simulator, where its numbers came from
(repository, commit, build), how its configuration maps onto a flashsched
device, the agreement targets and tolerances (each with its reason), and
the cases: what the peer was told to run, the same workload for flashsched,
and the peer's numbers.

The data files (``data/<peer>.json``) are read strictly: an unknown key, a
missing key or a value of the wrong type is an error naming the file and
the key's path.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flashsched.exceptions import ConfigError
from flashsched.validate.traces import TraceCut

DATA_DIR = Path(__file__).parent / "data"
PEERS = ("mqsim", "ssdsim")
FORMAT = 1


@dataclass(frozen=True)
class Tolerance:
    """How far flashsched may be from the peer on one metric: within
    ``pct`` percent of the peer's value, or within ``abs`` in the metric's
    unit (for values near zero and the peer's rounding)."""

    pct: float
    reason: str
    abs: float = 0.0

    def allows(self, peer: float, ours: float) -> bool:
        diff = abs(ours - peer)
        return diff <= self.abs or diff <= self.pct / 100.0 * abs(peer)


@dataclass(frozen=True)
class PeerResult:
    """One run of the peer: its numbers and how they were obtained."""

    metrics: dict[str, float]
    date: str
    command: str
    wall_s: float
    note: str = ""
    sha256: str = ""  # of the trace cut the peer ran on


@dataclass(frozen=True)
class Case:
    name: str
    description: str
    gc: bool  # a GC case (its own targets)
    quick: bool  # in the fast subset (tests, --quick)
    peer_settings: dict[str, Any]  # what the peer was told, as changes to its shipped files
    synthetic: str | None  # the flashsched workload: a synthetic spec ...
    trace_cut: TraceCut | None  # ... or a trace cut both ran on
    overrides: list[str]  # flashsched config keys beyond the peer's base mapping
    why: str  # the reason for those overrides
    tolerances: dict[str, Tolerance]  # per metric, beyond the class defaults
    result: PeerResult | None

    def tolerance(self, peer: PeerData, metric: str) -> tuple[Tolerance, Tolerance]:
        """(target, tolerance) for ``metric``: the class target, and the
        case's own tolerance where it states one (else the target)."""
        target = peer.target(metric, self.gc)
        return target, self.tolerances.get(metric, target)


@dataclass(frozen=True)
class PeerData:
    """Everything known about one peer."""

    peer: str
    source: dict[str, str]
    device: str
    overrides: list[str]
    why: dict[str, str]
    targets: dict[str, dict[str, Tolerance]]  # class -> metric -> target
    # metrics the peer reports that do not mean the same thing here: shown
    # with the reason, not compared
    not_compared: dict[str, str] = field(default_factory=dict)
    cases: list[Case] = field(default_factory=list)
    path: Path | None = None

    def target(self, metric: str, gc: bool) -> Tolerance:
        cls = "gc" if gc and "gc" in self.targets else "default"
        table = self.targets[cls]
        if metric in table:
            return table[metric]
        kind = metric_kind(metric)
        if kind in table:
            return table[kind]
        raise ConfigError(f"{self.path}: no target for metric '{metric}' (class {cls})")

    def case(self, name: str) -> Case:
        for c in self.cases:
            if c.name == name:
                return c
        known = ", ".join(c.name for c in self.cases)
        raise ConfigError(f"{self.path}: no case '{name}' (known: {known})")


def metric_kind(metric: str) -> str:
    """The target class of a metric: latency, flash or gc."""
    if metric.endswith("_us"):
        return "latency"
    if metric.startswith("gc_"):
        return "gc"
    if metric.startswith("flash_"):
        return "flash"
    return "throughput"


class _Reader:
    """Typed access to a JSON object that names the path of every bad key."""

    def __init__(self, obj: Any, where: str) -> None:
        if not isinstance(obj, dict):
            raise ConfigError(f"{where}: expected an object")
        self.obj: dict[str, Any] = obj
        self.where = where
        self.used: set[str] = set()

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        self.used.add(key)
        if key not in self.obj:
            if default is ...:
                raise ConfigError(f"{self.where}.{key}: missing")
            return default
        v = self.obj[key]
        if kind is float and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        if not isinstance(v, kind) or (isinstance(v, bool) and kind in (int, float)):
            raise ConfigError(f"{self.where}.{key}: expected {_kind_name(kind)}, got {v!r}")
        return v

    def sub(self, key: str, default: Any = ...) -> _Reader:
        return _Reader(self.get(key, dict, default), f"{self.where}.{key}")

    def strings(self, key: str, default: Any = ...) -> list[str]:
        v = self.get(key, list, default)
        if not all(isinstance(x, str) for x in v):
            raise ConfigError(f"{self.where}.{key}: expected a list of strings")
        return list(v)

    def done(self) -> None:
        unknown = set(self.obj) - self.used
        if unknown:
            raise ConfigError(f"{self.where}: unknown keys {sorted(unknown)}")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(k.__name__ for k in kinds)


def _tolerance(r: _Reader) -> Tolerance:
    t = Tolerance(r.get("pct", float), r.get("reason", str), r.get("abs", float, 0.0))
    r.done()
    if t.pct < 0 or t.abs < 0 or not t.reason.strip():
        raise ConfigError(f"{r.where}: pct and abs must be non-negative and reason given")
    return t


def _tolerances(r: _Reader) -> dict[str, Tolerance]:
    out = {k: _tolerance(r.sub(k)) for k in list(r.obj)}
    r.done()
    return out


def _metrics(r: _Reader) -> dict[str, float]:
    out = {k: r.get(k, float) for k in list(r.obj)}
    r.done()
    return out


def _result(r: _Reader) -> PeerResult:
    res = PeerResult(
        metrics=_metrics(r.sub("metrics")),
        date=r.get("date", str),
        command=r.get("command", str),
        wall_s=r.get("wall_s", float),
        note=r.get("note", str, ""),
        sha256=r.get("sha256", str, ""),
    )
    r.done()
    return res


def _case(r: _Reader) -> Case:
    wl = r.sub("workload")
    synthetic = wl.get("synthetic", str, None)
    cut_obj = wl.get("trace_cut", dict, None)
    wl.done()
    if (synthetic is None) == (cut_obj is None):
        raise ConfigError(f"{wl.where}: give exactly one of 'synthetic' and 'trace_cut'")
    cut = None if cut_obj is None else TraceCut.from_dict(cut_obj, f"{wl.where}.trace_cut")
    res = r.get("peer_result", dict, None)
    case = Case(
        name=r.get("name", str),
        description=r.get("description", str),
        gc=r.get("gc", bool, False),
        quick=r.get("quick", bool, False),
        peer_settings=r.get("peer_settings", dict),
        synthetic=synthetic,
        trace_cut=cut,
        overrides=r.strings("overrides", []),
        why=r.get("why", str, ""),
        tolerances=_tolerances(r.sub("tolerances", {})),
        result=None if res is None else _result(_Reader(res, f"{r.where}.peer_result")),
    )
    r.done()
    if case.overrides and not case.why.strip():
        raise ConfigError(f"{r.where}.why: say why the case's overrides are needed")
    if cut is not None and case.result is not None and cut.sha256 != case.result.sha256:
        raise ConfigError(
            f"{r.where}: trace_cut.sha256 and peer_result.sha256 differ (the peer ran on "
            "another input)"
        )
    return case


def parse(obj: Mapping[str, Any], where: str) -> PeerData:
    """Build a :class:`PeerData` from a decoded data file."""
    r = _Reader(dict(obj), where)
    if r.get("format", int) != FORMAT:
        raise ConfigError(f"{where}.format: version {obj['format']} not supported ({FORMAT})")
    peer = r.get("peer", str)
    if peer not in PEERS:
        raise ConfigError(f"{where}.peer: '{peer}' is not one of {PEERS}")
    src = r.sub("source")
    source = {k: src.get(k, str) for k in list(src.obj)}
    for k in ("repository", "commit", "build"):
        if k not in source:
            raise ConfigError(f"{src.where}.{k}: missing")
    fs = r.sub("flashsched")
    tg = r.sub("targets")
    targets = {k: _tolerances(tg.sub(k)) for k in list(tg.obj)}
    tg.done()
    if "default" not in targets:
        raise ConfigError(f"{tg.where}.default: missing")
    raw_cases = r.get("cases", list)
    data = PeerData(
        peer=peer,
        source=source,
        device=fs.get("device", str),
        overrides=fs.strings("overrides"),
        why=_why(fs.sub("why")),
        targets=targets,
        not_compared=_why(r.sub("not_compared", {})),
        cases=[_case(_Reader(c, f"{where}.cases[{i}]")) for i, c in enumerate(raw_cases)],
        path=Path(where),
    )
    fs.done()
    r.done()
    names = [c.name for c in data.cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ConfigError(f"{where}.cases: duplicate names {sorted(dup)}")
    keys = {o.split("=", 1)[0] for o in data.overrides}
    missing = keys - set(data.why)
    if missing:
        raise ConfigError(f"{where}.flashsched.why: no reason given for {sorted(missing)}")
    return data


def _why(r: _Reader) -> dict[str, str]:
    out = {k: r.get(k, str) for k in list(r.obj)}
    r.done()
    return out


def load(peer: str, data_dir: Path = DATA_DIR) -> PeerData:
    """The data of one peer (``mqsim`` or ``ssdsim``)."""
    if peer not in PEERS:
        raise ConfigError(f"unknown peer '{peer}' (known: {', '.join(PEERS)})")
    path = data_dir / f"{peer}.json"
    try:
        obj = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise ConfigError(f"{path}:{e.lineno}: {e.msg}") from None
    return parse(obj, str(path))
