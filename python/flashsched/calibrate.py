"""Fit a preset's flash timings to a real device's size-latency probe.

The probe (``flashsched probe``) gives the mean latency of one I/O at a time
for each (op, size). The simulator gives the same numbers for a device
config: a queue-depth-1 random workload of that size. ``calibrate`` adjusts
``timing.read_us``, ``timing.program_us`` and ``timing.channel_mb_s``
(optionally ``interface.command_us``, a fixed per-request cost, when the
config has a host interface) until the simulated means match the measured
ones in the least-squares sense of relative error, and states what is left:
the residual of every point, before and after. ``stat="p50"`` fits medians
instead of means (robust to the rare multi-millisecond stalls of a shared
or virtualised disk, which dominate its means).

The fit is Levenberg-Marquardt over the simulator itself (finite-difference
Jacobian, each simulation with the same seed, so the function is
deterministic); a parameter that does not move any point (a write cache
hides ``program_us``; ``command_us`` without an interface) is reported as
not identifiable and kept at its preset value. First version: QD 1 only,
on a fresh device (no GC), timing keys only (geometry is taken as given).
See docs/replay.md, "Calibrating a preset".
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from flashsched import _core
from flashsched.api import run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib


@dataclass(frozen=True)
class Param:
    """A fitted timing: its config key, and the fit's own scale for it
    (the channel is fitted as µs per KiB, so 0 means an infinite bus)."""

    name: str
    key: str
    to_fit: Callable[[float], float]
    from_fit: Callable[[float], float]
    lower: float


def _inverse_kib(v: float) -> float:
    """MB/s (10^6 B/s) <-> µs per KiB; 0 stands for an infinite bus both ways."""
    return 1024.0 / v if v > 0 else 0.0


PARAMS = {
    p.name: p
    for p in [
        Param("read_us", "timing.read_us", float, float, 0.001),
        Param("program_us", "timing.program_us", float, float, 0.001),
        Param("channel_mb_s", "timing.channel_mb_s", _inverse_kib, _inverse_kib, 0.0),
        Param("command_us", "interface.command_us", float, float, 0.0),
    ]
}
DEFAULT_PARAMS = ("read_us", "program_us", "channel_mb_s")
STATS = {"mean": ("mean_us", "mean"), "p50": ("p50_us", "p50")}


@dataclass
class Calibration:
    """The fitted values and the residuals of every probe point."""

    device: str
    overrides: list[str]
    params: pd.DataFrame  # name, key, preset, fitted, identifiable
    points: pd.DataFrame  # op, size, measured_us, preset_us, fitted_us, residual_us, residual_pct
    iterations: int
    stat: str = "mean"
    notes: list[str] = field(default_factory=list)

    @property
    def fitted_overrides(self) -> list[str]:
        """``--set`` strings for the fitted (identifiable) values."""
        rows = self.params[self.params["identifiable"]]
        return [f"{k}={v:.6g}" for k, v in zip(rows["key"], rows["fitted"])]

    def rms_pct(self, column: str = "fitted_us") -> float:
        rel = (self.points[column] - self.points["measured_us"]) / self.points["measured_us"]
        return float(np.sqrt(np.mean(rel**2)) * 100)

    def toml(self) -> str:
        """A device file layered over the preset with the fitted timings."""
        lines = [
            f"# flashsched calibrate: timings fitted to a probe (RMS residual "
            f"{self.rms_pct():.1f} %, was {self.rms_pct('preset_us'):.1f} % with the preset)",
        ]
        base = self.device
        if Path(base).is_file():
            base = str(Path(base).resolve())
        lines.append(f"preset = {json.dumps(base)}")
        sections: dict[str, list[str]] = {}
        for o in self.overrides + self.fitted_overrides:
            key, value = o.split("=", 1)
            sec, name = key.rsplit(".", 1)
            sections.setdefault(sec, []).append(f"{name} = {_toml_value(value)}")
        for sec, kvs in sections.items():
            lines += ["", f"[{sec}]", *dict.fromkeys(kvs)]
        return "\n".join(lines) + "\n"

    def text(self) -> str:
        """Parameters and residuals as plain text."""
        out = [
            f"calibration of {self.device} to the probe's {self.stat} latencies "
            f"({self.iterations} iterations)"
        ]
        out.append(f"{'parameter':<22}{'preset':>12}{'fitted':>12}")
        for r in self.params.itertuples():
            fitted = f"{r.fitted:>12.4g}" if r.identifiable else f"{'(kept)':>12}"
            out.append(f"{r.key:<22}{r.preset:>12.4g}{fitted}")
        out.append("")
        out.append(
            f"{'op':<6}{'size':>9}{'measured us':>13}{'preset us':>11}{'fitted us':>11}"
            f"{'residual us':>13}{'residual':>10}"
        )
        for p in self.points.itertuples():
            out.append(
                f"{p.op:<6}{p.size:>9}{p.measured_us:>13.1f}{p.preset_us:>11.1f}"
                f"{p.fitted_us:>11.1f}{p.residual_us:>13.1f}{p.residual_pct:>9.1f}%"
            )
        out.append(
            f"RMS relative residual: {self.rms_pct():.1f} % (preset: "
            f"{self.rms_pct('preset_us'):.1f} %)"
        )
        out += [f"note: {n}" for n in self.notes]
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "overrides": self.overrides,
            "iterations": self.iterations,
            "stat": self.stat,
            "params": self.params.to_dict("records"),
            "points": self.points.to_dict("records"),
            "rms_residual_pct": self.rms_pct(),
            "preset_rms_residual_pct": self.rms_pct("preset_us"),
            "fitted_overrides": self.fitted_overrides,
            "notes": self.notes,
        }


def _toml_value(v: str) -> str:
    try:
        float(v)
        return v
    except ValueError:
        return v if v in ("true", "false") or v.startswith('"') else json.dumps(v)


class _Model:
    """Simulated QD-1 mean latency of each probe point for fit-space values."""

    def __init__(
        self,
        points: pd.DataFrame,
        device: str,
        overrides: list[str],
        params: list[Param],
        per_point: int,
        seed: int,
        stat: str,
    ) -> None:
        self.points, self.device, self.overrides = points, device, overrides
        self.params, self.n, self.seed, self.stat = params, per_point, seed, stat
        self.calls = 0

    def settings(self, x: np.ndarray) -> list[str]:
        return [f"{p.key}={p.from_fit(float(v)):.9g}" for p, v in zip(self.params, x)]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        self.calls += 1
        out = []
        for op, size in zip(self.points["op"], self.points["size"]):
            spec = (
                f"read={1 if op == 'read' else 0},bs={size},pattern=random,qd=1,n={self.n},align=4k"
            )
            res = run(
                synthetic=spec,
                device=self.device,
                overrides=self.overrides + self.settings(x),
                seed=self.seed,
                keep_records=False,
            )
            out.append(res.summary["latency_us"][STATS[self.stat][1]])
        return np.asarray(out, dtype=float)


def _measured(probe: dict[str, Any] | str | os.PathLike[str], column: str) -> pd.DataFrame:
    where = "probe result"
    if not isinstance(probe, dict):
        where = str(probe)
        try:
            probe = json.loads(Path(probe).read_text())
        except json.JSONDecodeError as e:
            raise _core.ConfigError(f"{where}: not JSON ({e})") from None
    if not isinstance(probe, dict) or not isinstance(probe.get("points"), list):
        raise _core.ConfigError(
            f"{where}: no `points` list (write it with `flashsched probe --json`)"
        )
    rows = []
    for i, p in enumerate(probe["points"]):
        try:
            op, size, mean = str(p["op"]), int(p["size"]), float(p[column])
        except (KeyError, TypeError, ValueError) as e:
            raise _core.ConfigError(f"{where}: points[{i}]: bad or missing {e}") from None
        if op not in ("read", "write") or size <= 0 or not mean > 0:
            raise _core.ConfigError(
                f"{where}: points[{i}]: need op read|write, size > 0, {column} > 0; got {p}"
            )
        rows.append({"op": op, "size": size, "measured_us": mean})
    if not rows:
        raise _core.ConfigError(f"{where}: `points` is empty")
    return pd.DataFrame(rows)


def calibrate(
    probe: dict[str, Any] | str | os.PathLike[str],
    *,
    device: str = "default",
    overrides: Sequence[str] | None = None,
    params: Sequence[str] = DEFAULT_PARAMS,
    per_point: int = 200,
    max_iter: int = 30,
    seed: int = 42,
    stat: str = "mean",
) -> Calibration:
    """Fit ``params`` (names in :data:`PARAMS`) of ``device`` (+ ``overrides``)
    to a probe result (its dict or JSON file) and return the fit with the
    residual of every point; ``stat`` is ``mean`` or ``p50``."""
    if stat not in STATS:
        raise _core.ConfigError(f"calibrate stat: `{stat}` (known: {', '.join(STATS)})")
    meas = _measured(probe, STATS[stat][0])
    unknown = [p for p in params if p not in PARAMS]
    if unknown or not params:
        raise _core.ConfigError(
            f"calibrate params: unknown {unknown or '(none given)'} (known: {', '.join(PARAMS)})"
        )
    chosen = [PARAMS[p] for p in dict.fromkeys(params)]
    overrides = list(overrides or [])
    cfg = tomllib.loads(_core.load_config(device, overrides))

    def preset_value(key: str) -> float:
        sec, name = key.split(".")
        return float(cfg[sec][name])

    x0 = np.array([p.to_fit(preset_value(p.key)) for p in chosen])
    model = _Model(meas, device, overrides, chosen, per_point, seed, stat)
    y = meas["measured_us"].to_numpy(float)
    lower = np.array([p.lower for p in chosen])
    x, ident, iters = _levenberg_marquardt(model, x0, y, lower, max_iter)
    notes = []
    for p, ok in zip(chosen, ident):
        if not ok:
            notes.append(
                f"{p.key} does not change any simulated point (e.g. hidden by a write cache, "
                "or no host interface for command_us): kept at the preset value"
            )
    at_bound = [p.key for p, v, lo, ok in zip(chosen, x, lower, ident) if ok and v <= lo]
    if at_bound:
        notes.append(
            f"{', '.join(at_bound)} ended at the lower bound: the preset's structure "
            "(pages, channels, parallelism) cannot reproduce the measured shape with these "
            "timings alone; read the residuals, not just the values"
        )
    if "interface.command_us" not in [p.key for p in chosen]:
        notes.append(
            "the host software stack's fixed cost (system call, block layer, virtualisation) "
            "has no parameter here and is absorbed into read_us/program_us; with an "
            "[interface] in the config, add command_us to the fitted parameters"
        )
    sim0, sim = model(x0), model(x)
    meas["preset_us"] = sim0
    meas["fitted_us"] = sim
    meas["residual_us"] = meas["measured_us"] - sim
    meas["residual_pct"] = meas["residual_us"] / meas["measured_us"] * 100
    table = pd.DataFrame(
        {
            "name": [p.name for p in chosen],
            "key": [p.key for p in chosen],
            "preset": [p.from_fit(v) for p, v in zip(chosen, x0)],
            "fitted": [p.from_fit(v) if ok else p.from_fit(v0)
                       for p, v, v0, ok in zip(chosen, x, x0, ident)],
            "identifiable": ident,
        }
    )  # fmt: skip
    return Calibration(str(device), overrides, table, meas, iters, stat, notes)


def _levenberg_marquardt(
    f: Callable[[np.ndarray], np.ndarray],
    x0: np.ndarray,
    y: np.ndarray,
    lower: np.ndarray,
    max_iter: int = 30,
) -> tuple[np.ndarray, list[bool], int]:
    """Minimise sum(((f(x) - y) / y)^2) over x >= lower; returns x, which
    coordinates move f at all, and the iterations used."""

    def residual(x: np.ndarray) -> np.ndarray:
        return (f(x) - y) / y

    x = np.maximum(x0.astype(float), lower)
    r = residual(x)
    cost = float(r @ r)
    lam = 1e-2
    ident = [True] * len(x)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        jac = np.zeros((len(y), len(x)))
        for j in range(len(x)):
            h = max(abs(x[j]) * 1e-2, 1e-2)
            xh = x.copy()
            xh[j] += h
            jac[:, j] = (residual(xh) - r) / h
        norms = np.linalg.norm(jac, axis=0)
        ident = [bool(n > 1e-9) for n in norms]
        cols = np.flatnonzero(norms > 1e-9)
        if len(cols) == 0:
            break
        jc = jac[:, cols]
        jtj, g = jc.T @ jc, jc.T @ r
        improved, gain = False, 0.0
        while lam < 1e8:
            step = np.linalg.solve(jtj + lam * np.diag(np.diag(jtj)), -g)
            xn = x.copy()
            xn[cols] = np.maximum(x[cols] + step, lower[cols])
            rn = residual(xn)
            cn = float(rn @ rn)
            if cn < cost:
                improved = True
                gain = cost - cn
                x, r, cost, lam = xn, rn, cn, max(lam / 3, 1e-7)
                break
            lam *= 4
        if not improved or gain < 1e-6 * max(cost, 1e-12):
            break
    return x, ident, it
