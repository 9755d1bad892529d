"""``flashsched report RESULTS_DIR``: a self-contained HTML report.

Works on a reproduction directory (``reproduction.json``: comparison table,
figures, one section per experiment) or a single sweep directory
(``sweep.json``). Figures are embedded as base64 PNG, so the file opens
anywhere without its directory. Every sweep section lists its spec, its
table, the distinct resolved device configs, the seeds and the versions.
"""

from __future__ import annotations

import base64
import html
import json
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched.sweep.store import MANIFEST, SPEC_COPY, TABLE, ResultStore, atomic_write_text

REPORT = "report.html"
# Columns shown in the per-sweep table (all columns are in the Parquet file).
SHOWN = [
    "label",
    "workload",
    "device",
    "host_scheduler",
    "device_scheduler",
    "queue_depth",
    "seed",
    "requests",
    "iops",
    "bandwidth_mib_s",
    "latency_us.mean",
    "latency_us.p99",
    "read_latency_us.mean",
    "write_latency_us.mean",
    "waf",
    "gc.invocations",
]
MAX_ROWS = 200

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;
max-width:1200px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.82em;margin:.6em 0}
th,td{border:1px solid #ddd;padding:.25em .5em;text-align:right}
th{background:#f3f3f3}td.t,th.t{text-align:left}
figure{display:inline-block;margin:.5em;vertical-align:top;max-width:560px}
figure img{max-width:100%;border:1px solid #eee}figure.wide{max-width:1100px}
figcaption{font-size:.85em;color:#555}
pre{background:#f7f7f7;padding:.6em;overflow-x:auto;font-size:.8em}
.meta{color:#555;font-size:.9em}.ratio-good{background:#e6f4e6}.ratio-bad{background:#fbe9e9}
"""


def _esc(v: Any) -> str:
    return html.escape(str(v))


def _fmt(v: Any) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return "–"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def table_html(df: pd.DataFrame, cls: str = "", ratio_col: str | None = None) -> str:
    """A DataFrame as an HTML table (numbers right-aligned, text left)."""
    text = {c: not pd.api.types.is_numeric_dtype(df[c]) for c in df.columns}
    head = "".join(f'<th class="{"t" if text[c] else ""}">{_esc(c)}</th>' for c in df.columns)
    rows = []
    for _, r in df.iterrows():
        cells = []
        for c in df.columns:
            v = r[c]
            klass = "t" if text[c] else ""
            if c == ratio_col and isinstance(v, float) and not pd.isna(v):
                klass = "ratio-good" if 0.8 <= v <= 1.25 else "ratio-bad"
            cells.append(f'<td class="{klass}">{_esc(_fmt(v))}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _img(path: Path, alt: str) -> str:
    return _img_bytes(path.read_bytes(), alt)


def _img_bytes(png: bytes, alt: str) -> str:
    b64 = base64.b64encode(png).decode()
    return f'<img alt="{_esc(alt)}" src="data:image/png;base64,{b64}">'


def _figures(d: Path, figs: list[dict[str, str]]) -> str:
    parts = []
    for f in figs:
        png = d / "figures" / f"{f['name']}.png"
        if png.exists():
            parts.append(
                f"<figure>{_img(png, f['title'])}<figcaption><b>{_esc(f['title'])}"
                f"</b> {_esc(f.get('caption', ''))}</figcaption></figure>"
            )
    return "\n".join(parts)


def _versions(v: dict[str, str]) -> str:
    return "<p class='meta'>" + ", ".join(f"{_esc(k)} {_esc(x)}" for k, x in v.items()) + "</p>"


def sweep_section(d: Path, level: int = 2, figures: bool = False) -> str:
    """The HTML section for one sweep directory."""
    man = json.loads((d / MANIFEST).read_text())
    store = ResultStore(d)
    df = store.read_table() if (d / TABLE).exists() else pd.DataFrame()
    h = f"h{level}"
    out = [f"<{h} id='sweep-{_esc(man['name'])}'>Sweep: {_esc(man['name'])}</{h}>"]
    if man.get("description"):
        out.append(f"<p>{_esc(man['description'])}</p>")
    done = len(df)
    out.append(
        f"<p class='meta'>{done} of {len(man['keys'])} runs finished; seeds "
        f"{_esc(man.get('seeds'))}; results: {_esc(d / TABLE)}</p>"
    )
    if figures:
        out.append(overview_figures(d, df))
    if len(df):
        cols = [c for c in SHOWN if c in df.columns]
        # override axes that vary (fixed overrides are in the spec and configs)
        extra = [
            c
            for c in df.columns
            if "." in c
            and c.split(".")[0]
            in ("geometry", "timing", "ftl", "host", "controller", "variation", "array")
            and df[c].nunique(dropna=False) > 1
        ]
        shown = df[["key", *cols[:7], *extra, *cols[7:]]]
        more = f" (first {MAX_ROWS} of {len(df)})" if len(df) > MAX_ROWS else ""
        out.append(
            f"<details open><summary>Results table{more}</summary>"
            f"{table_html(shown.head(MAX_ROWS), 'results')}</details>"
        )
    wl = pd.DataFrame([{"name": n, **w} for n, w in man.get("workloads", {}).items()])
    if len(wl):
        out.append(f"<details><summary>Workloads</summary>{table_html(wl.astype(str))}</details>")
    if (d / SPEC_COPY).exists():
        out.append(
            f"<details><summary>Spec</summary><pre>"
            f"{_esc((d / SPEC_COPY).read_text())}</pre></details>"
        )
    configs: dict[str, list[str]] = {}
    for key in df.get("key", []):
        configs.setdefault(store.load_run(key)["device_toml"], []).append(key)
    for i, (toml, keys) in enumerate(configs.items()):
        if i >= 20:
            out.append(f"<p class='meta'>… {len(configs) - 20} more device configs</p>")
            break
        out.append(
            f"<details><summary>Device config {i + 1} (runs {_esc(', '.join(keys[:6]))}"
            f"{' …' if len(keys) > 6 else ''})</summary><pre>{_esc(toml)}</pre></details>"
        )
    out.append(_versions(man.get("versions", {})))
    return "\n".join(out)


PARAMS = [
    "label",
    "workload",
    "device",
    "host_scheduler",
    "device_scheduler",
    "queue_depth",
    "seed",
]
MAX_LINES = 12
MAX_BARS = 30


def _run_labels(df: pd.DataFrame) -> pd.Series:
    """Each run named by the parameters that vary across the sweep."""
    cols = [
        c
        for c in df.columns
        if (
            c in PARAMS
            or (
                c.count(".") == 1
                and c.split(".")[0]
                in ("geometry", "timing", "ftl", "host", "controller", "variation", "array")
            )
        )
        and df[c].nunique(dropna=False) > 1
    ]
    if not cols:
        return df["key"].astype(str)
    return df[cols].astype(str).apply(lambda r: ", ".join(f"{c}={v}" for c, v in r.items()), axis=1)


def overview_figures(d: Path, df: pd.DataFrame) -> str:
    """Figures for a plain sweep: mean/p99 latency per run and latency CDFs."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not len(df) or "latency_us.mean" not in df:
        return ""
    labels = _run_labels(df)
    out = []
    # mean over seeds, one bar pair per configuration (first MAX_BARS)
    noseed = _run_labels(df.drop(columns=["seed"])) if df["seed"].nunique() > 1 else labels
    agg = df.groupby(noseed, sort=False)[["latency_us.mean", "latency_us.p99"]].mean()
    agg = agg.head(MAX_BARS)
    fig, ax = plt.subplots(figsize=(8, max(2.5, 0.28 * len(agg) + 1)))
    y = list(range(len(agg)))[::-1]
    ax.barh([i + 0.2 for i in y], agg["latency_us.mean"], 0.4, label="mean")
    ax.barh([i - 0.2 for i in y], agg["latency_us.p99"], 0.4, label="p99")
    ax.set_yticks(y, list(agg.index), fontsize=7)
    ax.set_xscale("log")
    ax.set_xlabel("latency (µs)")
    seeds = " (mean over seeds)" if df["seed"].nunique() > 1 else ""
    more = f", first {MAX_BARS} of {len(set(noseed))}" if len(set(noseed)) > MAX_BARS else ""
    ax.set_title(f"Latency per configuration{seeds}{more}")
    ax.legend(fontsize=8)
    out.append(("Latency per configuration", fig))
    store = ResultStore(d)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    drawn = 0
    first_seed = df["seed"] == df["seed"].min()
    for key, lbl in zip(df["key"][first_seed], labels[first_seed]):
        cdf = store.load_run(key).get("latency_cdf")
        if cdf and cdf.get("all") and drawn < MAX_LINES:
            ax.plot(cdf["all"], cdf["p"], lw=1, label=lbl)
            drawn += 1
    if drawn:
        ax.set_xscale("log")
        ax.set_xlabel("latency (µs)")
        ax.set_ylabel("fraction of requests ≤ x")
        ax.set_title(f"Latency CDF (first {drawn} runs of seed {df['seed'].min()})")
        ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.02, 1.0))
        out.append(("Latency CDFs", fig))
    else:
        plt.close(fig)
    parts = []
    for title, f in out:
        buf = io.BytesIO()
        f.savefig(buf, format="png", bbox_inches="tight", dpi=100)
        plt.close(f)
        parts.append(
            f"<figure class='wide'>{_img_bytes(buf.getvalue(), title)}<figcaption><b>{title}"
            "</b></figcaption></figure>"
        )
    return "\n".join(parts)


def _page(title: str, body: str) -> str:
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{_esc(title)}"
        f"</title><style>{CSS}</style></head><body><h1>{_esc(title)}</h1>"
        f"<p class='meta'>Generated by flashsched report, {now}</p>{body}</body></html>"
    )


def _reproduction_body(d: Path, meta: dict[str, Any]) -> str:
    parts = [
        f"<p>{_esc(meta['citation'])}</p>",
        f"<p class='meta'>Mode: {'quick' if meta['quick'] else 'full'}; runtime "
        f"{meta['runtime_s']} s ({_esc(meta.get('documented_full_runtime', ''))}); traces: "
        f"{_esc(meta.get('traces'))}</p>",
    ]
    if meta.get("notes"):
        parts.append(
            f"<details><summary>Method and assumptions</summary><pre>"
            f"{_esc(meta['notes'])}</pre></details>"
        )
    if (d / "comparison.csv").exists():
        cmp = pd.read_csv(d / "comparison.csv")
        measured = int(cmp["ours"].notna().sum())
        parts.append(
            f"<h2 id='comparison'>Published vs ours</h2><p class='meta'>{measured} of "
            f"{len(cmp)} claims measured; ratio = ours / published.</p>"
        )
        parts.append(table_html(cmp, "comparison", ratio_col="ratio"))
    parts.append("<h2 id='figures'>Figures</h2>" + _figures(d, meta.get("figures", [])))
    for exp in meta.get("experiments", []):
        if (d / exp / MANIFEST).exists():
            parts.append(sweep_section(d / exp))
    parts.append("<h2>Versions</h2>" + _versions(meta.get("versions", {})))
    return "\n".join(parts)


def report(results_dir: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write ``report.html`` for a reproduction or sweep directory and return its path."""
    d = Path(results_dir)
    if (d / "reproduction.json").exists():
        meta = json.loads((d / "reproduction.json").read_text())
        page = _page(meta["title"], _reproduction_body(d, meta))
    elif (d / MANIFEST).exists():
        name = json.loads((d / MANIFEST).read_text())["name"]
        page = _page(f"flashsched sweep: {name}", sweep_section(d, figures=True))
    else:
        raise FileNotFoundError(
            f"{d}: neither a reproduction (reproduction.json) nor a sweep "
            f"({MANIFEST}) results directory"
        )
    path = Path(out) if out is not None else d / REPORT
    atomic_write_text(path, page)
    return path
