"""SSD-array runs for reproductions: ``flashsched.run_array`` with a
content-keyed cache in the output directory.

Single-device experiments go through the sweep store; array runs have their
own parameters (layout, link, phases or writers), so a reproduction that needs
them calls :func:`run_all` from its ``run`` hook. Each run is keyed by the
SHA-256 of its parameters and the code version and stored under
``OUT/array_runs/KEY/`` (``bandwidth.csv``, ``gc.csv``, then ``run.json`` last,
every file written atomically): a directory with ``run.json`` is a finished
run, so an interrupted reproduction resumes and a re-run simulates nothing.
Runs shared by several experiments (same parameters) are simulated once.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pandas as pd

import flashsched
from flashsched.sweep.store import atomic_write_text

CACHE_DIR = "array_runs"


@dataclass(frozen=True)
class ArrayRun:
    """The parameters of one ``flashsched.run_array`` call plus labels
    (``labels`` name the run in tables and figures; they are not part of the
    key)."""

    layout: str
    overrides: tuple[str, ...]
    ssds: int = 4
    device: str = "default"
    link: str | None = None
    phases: tuple[str, ...] | None = None
    writers: tuple[int, int, int, int] | None = None
    queue_depth: int = 256
    bin_ms: float = 1000.0
    seed: int = 42
    ssd_speeds: tuple[float, ...] | None = None
    labels: tuple[tuple[str, Any], ...] = ()

    def identity(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("labels")
        if d["ssd_speeds"] is None:
            d.pop("ssd_speeds")  # keys of runs without it stay as they were
        d["code_version"] = flashsched._core.__version__
        return d

    @property
    def key(self) -> str:
        blob = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass
class RunOutput:
    """A finished (or cached) array run: the summary and the per-bin series."""

    key: str
    run: ArrayRun
    summary: dict[str, Any]
    bandwidth: pd.DataFrame  # ArrayResult.bandwidth
    gc: pd.DataFrame  # ArrayResult.gc
    cached: bool

    @property
    def bin_s(self) -> float:
        return self.run.bin_ms / 1000.0


def _simulate(run: ArrayRun, out: Path) -> None:
    # looked up on the module each time, so tests can check that a re-run
    # never gets here
    res = flashsched.run_array(
        layout=run.layout,
        ssds=run.ssds,
        device=run.device,
        overrides=list(run.overrides),
        link=run.link,
        queue_depth=run.queue_depth,
        bin_ms=run.bin_ms,
        phases=None if run.phases is None else list(run.phases),
        writers=run.writers,
        seed=run.seed,
        progress=False,
        ssd_speeds=None if run.ssd_speeds is None else list(run.ssd_speeds),
        warn=False,  # the summary keeps them; the runs tables show them
    )
    d = out / CACHE_DIR / run.key
    atomic_write_text(d / "bandwidth.csv", res.bandwidth.to_csv(index=False))
    atomic_write_text(d / "gc.csv", res.gc.to_csv(index=False))
    # run.json last: its presence marks the run as complete
    doc = {"identity": run.identity(), "summary": res.summary}
    atomic_write_text(d / "run.json", json.dumps(doc, indent=1))


def load(out: Path, run: ArrayRun, cached: bool = True) -> RunOutput:
    """A stored run (raises FileNotFoundError when it has not finished)."""
    d = out / CACHE_DIR / run.key
    doc = json.loads((d / "run.json").read_text())
    bw = _mib(pd.read_csv(io.StringIO((d / "bandwidth.csv").read_text())))
    gc = pd.read_csv(io.StringIO((d / "gc.csv").read_text()))
    return RunOutput(run.key, run, doc["summary"], bw, gc, cached)


def _mib(bw: pd.DataFrame) -> pd.DataFrame:
    """Series cached by older versions were in decimal MB/s (``*_mb_s``):
    today's are MiB/s (``*_mib_s``)."""
    old = [c for c in bw.columns if c.endswith("_mb_s")]
    for c in old:
        bw[c] = bw[c] * (1e6 / (1 << 20))
    return bw.rename(columns={c: c[: -len("_mb_s")] + "_mib_s" for c in old})


def is_done(out: Path, run: ArrayRun) -> bool:
    return (out / CACHE_DIR / run.key / "run.json").is_file()


def run_all(
    experiments: Mapping[str, Sequence[ArrayRun]], out: Path, workers: int | None = None
) -> dict[str, list[RunOutput]]:
    """Run (or load) every run of every experiment; ``workers`` threads (the
    simulation releases the GIL; default 2)."""
    unique = {r.key: r for runs in experiments.values() for r in runs}
    todo = [r for r in unique.values() if not is_done(out, r)]
    with ThreadPoolExecutor(max_workers=max(1, workers or 2)) as pool:
        list(pool.map(lambda r: _simulate(r, out), todo))
    fresh = {r.key for r in todo}
    return {
        exp: [load(out, r, cached=r.key not in fresh) for r in runs]
        for exp, runs in experiments.items()
    }
