"""Paper reproductions: ``flashsched reproduce PAPER [--quick]``.

Each paper is one module here defining ``REPRODUCTION``; :data:`REGISTRY`
lists them. :func:`reproduce` checks the build has what the paper needs,
runs its experiments as sweeps (resumable), computes our number for every
published claim, draws the figures (PNG + SVG), writes the comparison table
(published vs ours, with workloads and the ratio) and an HTML report.

Output layout (``--out DIR``, default ``results/reproduce/PAPER``)::

    reproduction.json      paper, mode, runtime, versions, experiments
    EXPERIMENT/            one sweep directory per experiment
    figures/NAME.{png,svg}
    comparison.csv / comparison.md
    report.html
"""

from __future__ import annotations

import importlib
import json
import os
import time
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import arguments as A
from flashsched.exceptions import ArgumentValueError
from flashsched.reproduce import amphibian, aos, foundation, serial_array, vios
from flashsched.reproduce.base import (
    Claim,
    Context,
    Feature,
    Figure,
    Measured,
    MissingFeatures,
    Reproduction,
    Results,
    claims_frame,
)
from flashsched.sweep.store import atomic_write_text

REGISTRY: dict[str, Reproduction] = {
    r.name: r
    for r in (
        foundation.REPRODUCTION,
        amphibian.REPRODUCTION,
        aos.REPRODUCTION,
        vios.REPRODUCTION,
        serial_array.REPRODUCTION,
    )
}


def get(paper: str) -> Reproduction:
    """The registered reproduction called ``paper`` (names use ``-``; the old
    ``_`` spelling, e.g. ``serial_array``, is accepted). An unknown name
    raises :class:`~flashsched.exceptions.ArgumentValueError` listing them."""
    name = A.text("paper", paper).replace("_", "-")
    if name not in REGISTRY:
        raise ArgumentValueError(
            f"unknown reproduction {paper!r} (choose from {', '.join(REGISTRY)})"
        )
    return REGISTRY[name]


def default_traces() -> Path | None:
    """``$FLASHSCHED_TRACES``, else ``../shared/traces`` if it exists."""
    env = os.environ.get("FLASHSCHED_TRACES")
    if env:
        return Path(env)
    p = Path("..") / "shared" / "traces"
    return p.resolve() if p.is_dir() else None


def _trace_dir(
    rep: Reproduction, traces: str | os.PathLike[str] | None, synthetic_only: bool
) -> Path | None:
    """The sample-trace directory, or None when ``synthetic_only``. Without
    it a trace-reading reproduction would silently measure only its
    synthetic mixes (a smaller claims table that looks complete), so a
    missing directory is an error naming where we looked."""
    if synthetic_only:
        return None
    tdir = Path(traces) if traces is not None else default_traces()
    if not rep.uses_traces:
        return tdir
    if tdir is None or not tdir.is_dir():
        where = (
            f"'{tdir}'"
            if tdir is not None
            else "$FLASHSCHED_TRACES (unset) and ../shared/traces from " + str(Path.cwd())
        )
        raise ArgumentValueError(
            f"reproduction '{rep.name}' reads the sample traces but no trace directory was "
            f"found at {where}: pass --traces DIR (traces=...), or --synthetic-only "
            "(synthetic_only=True) to measure only the synthetic workloads"
        )
    return tdir


def comparison(rep: Reproduction, measured: dict[str, Measured]) -> pd.DataFrame:
    """Published vs ours for every claim. A claim with no measurement, or
    measured as NaN (the reproduction's note says why), has ours empty and a
    note starting with ``unmeasured``. When any claim has a band (our
    number's range over a sweep of unpublished settings), the table has
    ``band min`` / ``band max`` columns beside ``ours``."""
    rows = []
    banded = any(m.band is not None for m in measured.values())
    for c in rep.claims:
        m = measured.get(c.id)
        if m is None:
            m = Measured(float("nan"), "", "no experiment in this build measures it")
        if pd.isna(m.value):
            m = Measured(float("nan"), m.workload, f"unmeasured: {m.note}")
        ratio = None
        if not pd.isna(m.value) and c.published != 0:
            ratio = m.value / c.published
        rows.append(
            {
                "claim": c.claim,
                "metric": c.metric,
                "source": c.source,
                "paper workload": c.workload,
                "published": c.published,
                "ours": None if pd.isna(m.value) else m.value,
                **(
                    {
                        "band min": None if m.band is None else m.band[0],
                        "band max": None if m.band is None else m.band[1],
                    }
                    if banded
                    else {}
                ),
                "our workload": m.workload,
                "ratio": ratio,
                "unit": c.unit,
                "note": m.note,
            }
        )
    return pd.DataFrame(rows)


def _markdown(df: pd.DataFrame) -> str:
    cols = list(df.columns)

    def fmt(v: Any) -> str:
        if v is None or (isinstance(v, float) and pd.isna(v)):
            return "–"
        return f"{v:.3g}" if isinstance(v, float) else str(v).replace("|", "\\|")

    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(fmt(v) for v in row) + " |" for row in df.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def reproduce(
    paper: str,
    *,
    quick: bool = False,
    traces: str | os.PathLike[str] | None = None,
    out: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    backend: str = "local",
    address: str | None = None,
    progress: bool | None = None,
    report: bool = True,
    synthetic_only: bool = False,
) -> pd.DataFrame:
    """Reproduce ``paper`` and return the comparison table (published vs ours).

    Raises :class:`MissingFeatures` (naming every missing scheduler/feature)
    when this build cannot run it. ``quick`` runs the small CI version.
    ``traces`` is the sample-trace directory (default ``$FLASHSCHED_TRACES``
    or ``../shared/traces``). A reproduction that reads sample traces
    refuses to run without them (:class:`~flashsched.exceptions.ArgumentValueError`
    naming where it looked) unless ``synthetic_only`` says to measure only
    its synthetic workloads; a trace missing from a found directory is
    skipped (its claims are reported unmeasured).
    The table's ``attrs`` hold ``out`` and ``figures`` (paths).
    """
    sw = importlib.import_module("flashsched.sweep")

    rep = get(paper)
    A.flag("quick", quick)
    A.flag("report", report)
    A.flag("synthetic_only", synthetic_only)
    traces = A.optional_path("traces", traces)
    out = A.optional_path("out", out)
    missing = rep.missing()
    if missing:
        raise MissingFeatures(rep.name, missing)
    if rep.published_only:
        raise MissingFeatures(rep.name, ["its experiment definitions (published numbers only)"])
    outdir = Path(out) if out is not None else Path("results") / "reproduce" / rep.name
    tdir = _trace_dir(rep, traces, synthetic_only)
    ctx = Context(quick=quick, out=outdir, traces=tdir)
    start = time.time()
    tables: dict[str, pd.DataFrame] = {}
    specs = rep.experiments(ctx)
    if rep.run is not None:
        tables = rep.run(ctx, workers)
    for exp, spec in specs.items():
        tables[exp] = sw.sweep(
            spec,
            out=outdir / exp,
            workers=workers,
            backend=backend,
            address=address,
            progress=progress,
        )
    results = Results(outdir, tables)
    measured = rep.measure(results, ctx)
    table = comparison(rep, measured)
    figs = [_save_figure(f, outdir) for f in rep.figures(results, ctx)]
    atomic_write_text(outdir / "comparison.csv", table.to_csv(index=False))
    atomic_write_text(outdir / "comparison.md", _markdown(table))
    extra = rep.tables(results, ctx)
    for name, df in extra.items():
        atomic_write_text(outdir / f"{name}.csv", df.to_csv(index=False))
        atomic_write_text(outdir / f"{name}.md", _markdown(df))
    meta = {
        "paper": rep.name,
        "title": rep.title,
        "citation": rep.citation,
        "notes": rep.notes,
        "quick": quick,
        "runtime_s": round(time.time() - start, 1),
        "documented_full_runtime": rep.runtime,
        "traces": None if tdir is None else str(tdir),
        "experiments": list(tables),
        "figures": figs,
        "tables": sorted(extra),
        "versions": sw.versions(),
    }
    atomic_write_text(outdir / "reproduction.json", json.dumps(meta, indent=1))
    if report:
        from flashsched.report import report as make_report

        make_report(outdir)
    table.attrs.update(out=str(outdir), figures=figs)
    return table


def _save_figure(fig: Figure, outdir: Path) -> dict[str, str]:
    from flashsched.reproduce.figures import save

    save(fig, outdir / "figures")
    return {"name": fig.name, "title": fig.title, "caption": fig.caption}


__all__ = [
    "REGISTRY",
    "reproduce",
    "get",
    "comparison",
    "claims_frame",
    "Reproduction",
    "Claim",
    "Measured",
    "Feature",
    "Figure",
    "Context",
    "Results",
    "MissingFeatures",
]
