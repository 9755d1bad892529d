"""What a paper reproduction declares: the paper's published claims, the
experiments (sweep specs) that measure them, the features they need, how to
compute our number for each claim, and the figures to re-make.

A reproduction module builds one :class:`Reproduction` and the registry in
``reproduce/__init__.py`` lists it (one line). Nothing here fakes a number:
a claim we could not measure is reported as missing, and a reproduction whose
schedulers or features are not built is refused with the list of what is
missing (:class:`MissingFeatures`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched.exceptions import FlashschedError


class MissingFeatures(FlashschedError):
    """A reproduction needs schedulers or features this build does not have."""

    def __init__(self, paper: str, missing: list[str]) -> None:
        self.paper = paper
        self.missing = missing
        super().__init__(
            f"reproduction '{paper}' cannot run: this build lacks "
            + "; ".join(missing)
            + " (see `flashsched schedulers`; they land with the scheduler/array branches)"
        )


@dataclass(frozen=True)
class Claim:
    """One published number: what the paper claims, where, on what workload."""

    id: str
    claim: str  # e.g. "Amphibian vs Noop: mean response time reduction"
    metric: str  # e.g. "reduction of mean response time (%)"
    published: float
    workload: str  # the paper's workload ("Fin1", "mean of 8 traces")
    source: str  # "Fig. 10, §IV-C"
    unit: str = "%"


@dataclass(frozen=True)
class Measured:
    """Our number for a claim and the workload it was measured on."""

    value: float
    workload: str
    note: str = ""
    # (min, max) of our number over a sweep of settings the paper does not
    # give (e.g. a synthetic workload's burstiness, a detector threshold),
    # the chosen setting included; None when nothing was swept.
    band: tuple[float, float] | None = None


@dataclass(frozen=True)
class Feature:
    """A capability beyond schedulers (a config key, an array layout, ...)."""

    name: str
    check: Callable[[], bool]


@dataclass
class Context:
    """How a reproduction is being run."""

    quick: bool
    out: Path
    traces: Path | None = None

    def trace(self, rel: str) -> str | None:
        """Absolute path of a sample trace, or None when it is not available."""
        if self.traces is None:
            return None
        p = self.traces / rel
        return str(p) if p.is_file() else None


class Results:
    """A reproduction's results: one sweep table per experiment, plus the
    per-run JSON (latency CDFs, per-second series)."""

    def __init__(self, out: Path, tables: Mapping[str, pd.DataFrame]) -> None:
        self.out = out
        self.tables = dict(tables)

    def table(self, experiment: str) -> pd.DataFrame:
        return self.tables[experiment]

    def run(self, experiment: str, key: str) -> dict[str, Any]:
        return json.loads((self.out / experiment / "runs" / f"{key}.json").read_text())


@dataclass(frozen=True)
class Figure:
    """A figure made by a reproduction (saved as PNG and SVG)."""

    name: str
    title: str
    caption: str
    fig: Any  # matplotlib.figure.Figure


Experiments = Callable[[Context], dict[str, dict[str, Any]]]
Measure = Callable[[Results, Context], dict[str, Measured]]
Figures = Callable[[Results, Context], list[Figure]]
# Extra tables a reproduction reports beside its claims (mechanism metrics):
# name -> table, written as <name>.csv and <name>.md.
Tables = Callable[[Results, Context], dict[str, pd.DataFrame]]
# runs a reproduction's experiments itself (e.g. SSD arrays, which are not
# sweeps): (context, workers) -> one table per experiment in ``context.out``
Runner = Callable[[Context, "int | None"], dict[str, pd.DataFrame]]


def _no_figures(_: Results, __: Context) -> list[Figure]:
    return []


def _no_tables(_: Results, __: Context) -> dict[str, pd.DataFrame]:
    return {}


def _no_measure(_: Results, __: Context) -> dict[str, Measured]:
    return {}


@dataclass(frozen=True)
class Reproduction:
    """Everything the framework needs to reproduce one paper."""

    name: str
    title: str
    citation: str
    claims: list[Claim]
    experiments: Experiments
    measure: Measure = _no_measure
    figures: Figures = _no_figures
    tables: Tables = _no_tables
    host_schedulers: tuple[str, ...] = ()
    device_schedulers: tuple[str, ...] = ()
    features: tuple[Feature, ...] = ()
    notes: str = ""
    runtime: str = ""  # documented wall time of the full run
    published_only: bool = False  # True while its experiments are not defined yet
    run: Runner | None = None  # None: ``experiments`` are sweeps run by the framework
    # reads the sample traces (``Context.trace``): a missing trace directory
    # is then an error unless the run is explicitly synthetic-only
    uses_traces: bool = True

    def missing(self) -> list[str]:
        """What this build lacks for this reproduction (empty = ready)."""
        from flashsched import _core

        out = []
        host, dev = set(_core.host_schedulers()), set(_core.device_schedulers())
        if lost := [s for s in self.host_schedulers if s not in host]:
            out.append("host scheduler(s) " + ", ".join(lost))
        if lost := [s for s in self.device_schedulers if s not in dev]:
            out.append("device scheduler(s) " + ", ".join(lost))
        for f in self.features:
            try:
                ok = f.check()
            except Exception:  # noqa: BLE001 - a failing probe means absent
                ok = False
            if not ok:
                out.append(f"feature: {f.name}")
        return out


def config_key_feature(name: str, override: str) -> Feature:
    """A feature present when ``override`` (``section.key=value``) is accepted."""

    def check() -> bool:
        from flashsched import _core

        _core.load_config("default", [override])
        return True

    return Feature(name, check)


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    """The published numbers as a table."""
    return pd.DataFrame(
        [
            {
                "id": c.id,
                "claim": c.claim,
                "metric": c.metric,
                "published": c.published,
                "unit": c.unit,
                "workload": c.workload,
                "source": c.source,
            }
            for c in claims
        ]
    )
