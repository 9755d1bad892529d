"""Burstiness of block traces, measured so the synthetic Table III profiles
of the Amphibian reproduction need no invented ``burst`` value.

The profiles' arrivals are batch Poisson (``profile:NAME,burst=B``): bursts
come as a Poisson process and each brings a geometric number of requests of
mean B at one instant. Two estimators of B from a trace's arrival times:

- **near-simultaneous gaps** (the one the reproduction uses): in the model a
  fraction 1 − 1/B of the gaps between consecutive arrivals is zero, so
  B = 1 / (1 − f) with f the fraction of gaps shorter than ``tau_us``. Real
  traces stamp requests issued together microseconds apart, so "the same
  instant" means "closer than the shortest flash operation", after which the
  first request of a burst has not finished before the next one arrives
  (``tau_us`` = 25 µs, the X25-E's read time, the fastest drive's). Gaps are
  taken after the paper's ×10 replay.
- **moments**: the gaps' squared coefficient of variation is 2B − 1 in the
  model, so B = (CV² + 1) / 2. Long idle periods inflate it (real traces are
  on/off, not batch Poisson), so it is reported as an upper reference, not
  used.

The reproduction uses the median over the public samples of the first
estimator (docs/amphibian.md, "Burstiness, calibrated").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

TAU_US = 25.0  # the fastest drive's read time (intel-x25e tR)
REPLAY_SPEEDUP = 10.0  # the paper replays its traces ×10


def burst_near_zero(gaps_us: Sequence[float] | np.ndarray, tau_us: float = TAU_US) -> float:
    """B = 1 / (1 − fraction of gaps below ``tau_us``); NaN for no gaps,
    inf when every gap is below it."""
    g = np.asarray(gaps_us, dtype=float)
    if g.size == 0:
        return math.nan
    f = float(np.mean(g < tau_us))
    return math.inf if f >= 1.0 else 1.0 / (1.0 - f)


def burst_moments(gaps_us: Sequence[float] | np.ndarray) -> float:
    """B = (CV² + 1) / 2 of the gaps; NaN for fewer than two gaps or a zero mean."""
    g = np.asarray(gaps_us, dtype=float)
    if g.size < 2 or not g.mean() > 0:
        return math.nan
    cv2 = float(g.var() / g.mean() ** 2)
    return (cv2 + 1.0) / 2.0


def arrival_gaps_us(trace: str | Path, speedup: float = REPLAY_SPEEDUP) -> np.ndarray:
    """Gaps between consecutive arrivals of ``trace`` replayed ``speedup``×
    faster, µs (arrival times as the simulator reads them: any format it
    detects, sorted)."""
    import flashsched

    res = flashsched.run(trace=str(trace), intensity=speedup, device="default")
    t = np.sort(res.requests["arrival_ns"].to_numpy(dtype=float))
    return np.diff(t) / 1e3


def calibrate(
    traces: Mapping[str, str | Path], tau_us: float = TAU_US, speedup: float = REPLAY_SPEEDUP
) -> pd.DataFrame:
    """One row per trace: requests, mean gap, fraction of gaps below
    ``tau_us`` and both estimates of B (after the ×``speedup`` replay)."""
    rows = []
    for name, path in traces.items():
        g = arrival_gaps_us(path, speedup)
        rows.append(
            {
                "trace": name,
                "requests": int(g.size + 1),
                "mean_gap_us": float(g.mean()) if g.size else math.nan,
                "frac_below_tau": float(np.mean(g < tau_us)) if g.size else math.nan,
                "burst_near_zero": burst_near_zero(g, tau_us),
                "burst_moments": burst_moments(g),
            }
        )
    return pd.DataFrame(rows)
