"""``flashsched report RESULTS_DIR``: a self-contained HTML report of any
output directory flashsched writes.

* a reproduction (``reproduction.json``): comparison table, figures, one
  section per experiment;
* a sweep (``sweep.json``), including ``compare`` output (``compare.csv``
  next to it): figures split by the swept axes, the full table, configs;
* ``run --out`` (``summary.json`` + ``config.toml``): summary, latency
  table, time series and latency CDFs;
* ``array-compare`` (sub-directories with array summaries);
* any other directory: a section for each results directory inside it.

Figures are embedded as base64 PNG, so the file opens anywhere without its
directory.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import arguments as A
from flashsched.report import html as H
from flashsched.report import outputs, sweep
from flashsched.sweep.store import MANIFEST, atomic_write_text

REPORT = "report.html"


def _figures(d: Path, figs: list[dict[str, str]]) -> str:
    parts = []
    for f in figs:
        png = d / "figures" / f"{f['name']}.png"
        if png.exists():
            parts.append(
                f"<figure>{H.img(png, f['title'])}<figcaption><b>{H.esc(f['title'])}"
                f"</b> {H.esc(f.get('caption', ''))}</figcaption></figure>"
            )
    return "\n".join(parts)


def _reproduction_body(d: Path, meta: dict[str, Any]) -> str:
    parts = [
        f"<p>{H.esc(meta['citation'])}</p>",
        f"<p class='meta'>Mode: {'quick' if meta['quick'] else 'full'}; runtime "
        f"{meta['runtime_s']} s ({H.esc(meta.get('documented_full_runtime', ''))}); traces: "
        f"{H.esc(meta.get('traces'))}</p>",
    ]
    if meta.get("notes"):
        parts.append(H.details("Method and assumptions", H.pre(meta["notes"])))
    if (d / "comparison.csv").exists():
        cmp = pd.read_csv(d / "comparison.csv")
        measured = int(cmp["ours"].notna().sum())
        parts.append(
            f"<h2 id='comparison'>Published vs ours</h2><p class='meta'>{measured} of "
            f"{len(cmp)} claims measured; ratio = ours / published.</p>"
        )
        parts.append(H.table_html(cmp, "comparison", ratio_col="ratio"))
    parts.append("<h2 id='figures'>Figures</h2>" + _figures(d, meta.get("figures", [])))
    for exp in meta.get("experiments", []):
        if (d / exp / MANIFEST).exists():
            parts.append(sweep.section(d / exp))
        elif (d / exp / "runs.csv").exists():
            parts.append(runs_section(d / exp, exp))
    parts.append("<h2>Versions</h2>" + H.versions(meta.get("versions", {})))
    return "\n".join(parts)


def runs_section(d: Path, name: str) -> str:
    """An experiment run by its reproduction (not a sweep, e.g. SSD arrays):
    its ``runs.csv``, one row per run."""
    df = pd.read_csv(d / "runs.csv")
    return (
        f"<h2 id='runs-{H.esc(name)}'>Experiment: {H.esc(name)}</h2><p class='meta'>{len(df)} "
        f"runs; results: {H.esc(d / 'runs.csv')}</p>" + H.table_html(df, "runs")
    )


def _array_layouts(d: Path) -> list[Path]:
    return sorted(p for p in d.iterdir() if p.is_dir() and outputs.is_array_dir(p))


def _kind(d: Path) -> str | None:
    """What wrote directory ``d`` (None: nothing flashsched writes)."""
    if (d / "reproduction.json").exists():
        return "reproduction"
    if (d / MANIFEST).exists():
        return "compare" if (d / "compare.csv").exists() else "sweep"
    if (d / "summary.json").exists():
        return "array" if outputs.is_array_dir(d) else "run"
    if d.is_dir() and _array_layouts(d):
        return "arrays"
    return None


def _body(d: Path, kind: str, level: int = 2) -> tuple[str, str]:
    """(title, HTML) of the report of directory ``d`` of ``kind``."""
    if kind == "reproduction":
        meta = json.loads((d / "reproduction.json").read_text())
        return meta["title"], _reproduction_body(d, meta)
    if kind == "sweep":
        name = json.loads((d / MANIFEST).read_text())["name"]
        return f"Sweep: {name}", sweep.section(d, level, figures=True, title=False)
    if kind == "compare":
        details = H.details("Runs (the comparison's sweep)", sweep.section(d, level, title=False))
        return "Scheduler comparison", outputs.compare_section(d) + details
    if kind == "run":
        s = json.loads((d / "summary.json").read_text())
        return f"Run: {s.get('workload', d.name)}", outputs.run_section(d)
    if kind == "array":
        return f"Array: {d.name}", outputs.array_section(d.parent, [d])
    return "SSD arrays", outputs.array_section(d, _array_layouts(d))


def _collection(d: Path) -> tuple[str, str] | None:
    """A directory holding results directories: one section each."""
    subs = [(p, _kind(p)) for p in sorted(d.iterdir()) if p.is_dir()] if d.is_dir() else []
    found = [(p, k) for p, k in subs if k is not None]
    if not found:
        return None
    parts = []
    for p, k in found:
        title, body = _body(p, k, level=3)
        parts.append(f"<h2 id='{H.esc(p.name)}'>{H.esc(p.name)}: {H.esc(title)}</h2>{body}")
    return f"Results in {d.name or d}", "\n".join(parts)


def report(results_dir: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write ``report.html`` for a results directory (see the module doc)
    and return its path."""
    d = Path(A.path("results_dir", results_dir))
    out = A.optional_path("out", out)
    if not d.is_dir():
        raise FileNotFoundError(f"{d}: no such results directory")
    kind = _kind(d)
    got = _body(d, kind) if kind is not None else _collection(d)
    if got is None:
        raise FileNotFoundError(
            f"{d}: not a results directory: neither a reproduction (reproduction.json), "
            f"a sweep or comparison ({MANIFEST}), a run (summary.json) nor array-compare "
            "output, and no such directory inside it"
        )
    path = Path(out) if out is not None else d / REPORT
    atomic_write_text(path, H.page(*got))
    return path
