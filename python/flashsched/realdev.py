"""Real-device replay and the size-latency probe (``flashsched-replay``).

``replay(...)`` runs a workload the simulator accepts through the same host
scheduler against a real file or block device (Linux io_uring, O_DIRECT)
and returns the same :class:`RunResult` as :func:`flashsched.run`, whose
summary has an extra ``replay`` section (target, window, kernel, backend).
``probe(...)`` measures mean latency against request size (Amphibian
Fig. 1). See docs/replay.md.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from flashsched import _core
from flashsched.api import _overrides
from flashsched.results import RunResult

DEFAULT_PROBE_SIZES = ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m"]

_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def parse_size(v: int | str, what: str = "size") -> int:
    """``4096``, ``"4k"``, ``"16GiB"`` -> bytes (ConfigError naming ``what``)."""
    if isinstance(v, int):
        if v < 0:
            raise _core.ConfigError(f"{what}: {v} is negative")
        return v
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", str(v).lower())
    if not m:
        raise _core.ConfigError(f"{what}: `{v}` is not a size (e.g. 4096, 4k, 16GiB)")
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def drive(r: _core.Replay, progress: bool | None = False, slice_s: float = 0.2) -> bool:
    """Run a replay to the end in short slices; Ctrl-C stops it cleanly
    (in-flight I/O is waited for). Returns True when interrupted."""
    show = sys.stderr.isatty() if progress is None else progress
    bar: Any = None
    if show:
        from tqdm import tqdm

        bar = tqdm(total=r.progress()[1], desc="replaying", unit="req", unit_scale=True)
    done = 0
    try:
        while not r.advance(slice_s):
            if bar is not None:
                now = r.progress()[0]
                bar.update(now - done)
                done = now
        return False
    except KeyboardInterrupt:
        r.interrupt()
        print("flashsched replay: interrupted; in-flight I/O completed", file=sys.stderr)
        return True
    finally:
        if bar is not None:
            bar.close()


def replay(
    *,
    target: str | os.PathLike[str],
    trace: str | os.PathLike[str] | None = None,
    synthetic: str | None = None,
    offset: int | str = 0,
    size: int | str = 0,
    allow_write: bool = False,
    verify: bool = False,
    prefill: bool | None = None,
    align: int | str = 0,
    backend: str = "auto",
    device: str = "default",
    overrides: list[str] | None = None,
    host_sched: str | None = None,
    queue_depth: int | None = None,
    format: str = "auto",
    intensity: float = 1.0,
    limit: int | None = None,
    seed: int = 42,
    keep_records: bool = True,
    progress: bool | None = False,
    skip_bad: bool = False,
    time_order: str = "auto",
) -> RunResult:
    """Replay one workload on a real file or block device.

    Only ``[offset, offset + size)`` of ``target`` is touched (``size`` 0 =
    to the end of an existing target; a missing file is created and
    preallocated). Writes and trims need ``allow_write``; a block device in
    use (mounted, swap, dm/md) is refused for writing. ``verify`` stamps the
    window first and checks every read against the versions it may see
    (raises :class:`flashsched.VerifyError` naming the request). The host
    side (scheduler, tunables, queue depth) comes from ``device`` plus
    ``overrides`` as in :func:`flashsched.run`. Ctrl-C stops cleanly; the
    summary then has ``replay.loop.interrupted`` set.
    """
    r = _core.Replay(
        target=str(Path(target)),
        offset=parse_size(offset, "offset"),
        size=parse_size(size, "size"),
        allow_write=allow_write,
        align=parse_size(align, "align"),
        device=str(device),
        overrides=_overrides(overrides, host_sched, None, queue_depth),
        trace=None if trace is None else str(Path(trace)),
        format=format,
        intensity=intensity,
        limit=limit,
        synthetic=synthetic,
        seed=seed,
        keep_records=keep_records,
        verify=verify,
        prefill=prefill,
        backend=backend,
        skip_bad=skip_bad,
        time_order=time_order,
    )
    drive(r, progress)
    return RunResult.from_sim(r)  # type: ignore[arg-type]


@dataclass
class ProbeResult:
    """Mean latency per (op, size) and the per-op linear fits."""

    raw: dict[str, Any]
    points: pd.DataFrame = field(init=False)
    fits: pd.DataFrame = field(init=False)

    def __post_init__(self) -> None:
        self.points = pd.DataFrame(self.raw["points"])
        self.fits = pd.DataFrame(self.raw["fits"])

    def text(self) -> str:
        """The table and fits as plain text."""
        t = self.raw["target"]
        lines = [
            f"probe of {t['path']} ({t['kind']}, window {self.raw['window']['size']:,} B "
            f"at {self.raw['window']['offset']:,}), backend {self.raw['backend']['backend']}, "
            f"QD 1, prefilled {self.raw['prefilled']}",
            f"{'op':<6}{'size':>9}{'n':>6}{'mean us':>11}{'p50 us':>10}"
            f"{'p99 us':>10}{'min us':>10}",
        ]
        for p in self.raw["points"]:
            lines.append(
                f"{p['op']:<6}{p['size']:>9}{p['n']:>6}{p['mean_us']:>11.1f}"
                f"{p['p50_us']:>10.1f}{p['p99_us']:>10.1f}{p['min_us']:>10.1f}"
            )

        def num(v: float | None, spec: str) -> str:
            # JSON has no NaN/inf: a fit of noisy points (a stall, a slope
            # <= 0 with no MB/s) comes back as null.
            return "n/a" if v is None else format(v, spec)

        for f in self.raw["fits"]:
            lines.append(
                f"fit {f['op']:<5}: latency = {num(f['intercept_us'], '.1f')} us + "
                f"{num(f['slope_us_per_kib'], '.3f')} us/KiB x size   "
                f"({num(f['mb_s'], '.0f')} MB/s, R^2 {num(f['r2'], '.3f')})"
            )
        if self.raw.get("fallback"):
            lines.append(f"WARNING: {self.raw['fallback']}")
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike[str]) -> Path:
        """Mean latency vs size per op, with the fitted lines (PNG/SVG/...)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        for (op, g), colour in zip(self.points.groupby("op", sort=False), ["C0", "C3"]):
            kib = g["size"] / 1024
            ax.plot(kib, g["mean_us"], "o", color=colour, label=f"{op} (measured mean)")
            f = self.fits[self.fits["op"] == op]
            if len(f):
                a, b = f.iloc[0]["intercept_us"], f.iloc[0]["slope_us_per_kib"]
                ax.plot(
                    kib,
                    a + b * kib,
                    "-",
                    color=colour,
                    alpha=0.6,
                    label=f"{op} fit: {a:.0f} us + {b:.2f} us/KiB",
                )
        ax.set_xlabel("request size (KiB)")
        ax.set_ylabel("mean latency (us), QD 1")
        ax.set_title(f"size-latency probe: {self.raw['target']['path']}", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        out = Path(path)
        fig.savefig(out, dpi=120)
        plt.close(fig)
        return out


def probe(
    *,
    target: str | os.PathLike[str],
    sizes: list[int | str] | None = None,
    offset: int | str = 0,
    size: int | str = 0,
    allow_write: bool = False,
    writes: bool | None = None,
    per_size: int = 200,
    prefill: bool | None = None,
    align: int | str = 0,
    backend: str = "auto",
    seed: int = 42,
) -> ProbeResult:
    """Mean latency vs request size at queue depth 1, reads (and writes when
    ``allow_write``), at random aligned offsets of the window; fits
    ``latency = intercept + slope * size`` per op."""
    raw = _core.probe(
        target=str(Path(target)),
        sizes=[parse_size(s, "sizes") for s in (sizes or DEFAULT_PROBE_SIZES)],
        offset=parse_size(offset, "offset"),
        size=parse_size(size, "size"),
        allow_write=allow_write,
        align=parse_size(align, "align"),
        per_size=per_size,
        writes=allow_write if writes is None else writes,
        prefill=prefill,
        backend=backend,
        seed=seed,
    )
    return ProbeResult(json.loads(raw))
