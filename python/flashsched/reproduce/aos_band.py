"""The AOS reproduction's ``intensity`` experiment: FIFO and AOS at half
and twice each workload's load.

The AOS paper (§IV-A/B) gives no utilisation, arrival rate or intensity for
its traces, so the load we replay them at (``aos.INTENSITY``, the
per-trace ``aos.INTENSITIES``, the synthetic mixes' IOPS) is our setting,
not the paper's. The headline claims are measured at one load; this
experiment runs the baseline FIFO and AOS, exactly as the ``latency``
experiment does, at ×0.5 and ×2 of it (traces: intensity × factor;
synthetic mixes: IOPS × factor). ×1 is the ``latency`` experiment itself
(same device, settings and workloads), so it is not run again.

The ``intensity_band`` table gives, per factor, AOS against FIFO averaged
as the claims are (geometric mean of the per-workload ratios, median
beside it; workloads every scheduler run saturates left out) and which
workloads were saturated at that factor; each FIFO-relative claim's band
is widened by the three factors and its note lists them.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from flashsched.reproduce.common import Compare, compare, per_workload, saturated

INTENSITY_EXP = "intensity"
FACTORS = (0.5, 1.0, 2.0)
FACTOR_COL = "intensity factor"
_SEP = "@x"  # workload name suffix: "hm_0@x2"


def _fmt(f: float) -> str:
    return f"{f:g}"


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


def scaled_workloads(wl: Mapping[str, Any], factor: float) -> dict[str, Any]:
    """``wl`` at ``factor`` × its load, each named ``NAME@xFACTOR``: a
    trace's intensity and a synthetic spec's ``iops`` are multiplied."""
    out: dict[str, Any] = {}
    for name, w in wl.items():
        w2 = dict(w)
        if "trace" in w2:
            w2["intensity"] = _num(float(w2.get("intensity", 1.0)) * factor)
        else:
            spec = str(w2["synthetic"])
            m = re.search(r"iops=([0-9.]+)", spec)
            if m is None:
                raise ValueError(f"{name}: synthetic spec without iops: {spec}")
            iops = _num(float(m.group(1)) * factor)
            w2["synthetic"] = spec[: m.start(1)] + f"{iops:g}" + spec[m.end(1) :]
        out[f"{name}{_SEP}{_fmt(factor)}"] = w2
    return out


def intensity_workloads(wl: Mapping[str, Any]) -> dict[str, Any]:
    """Every workload at each factor other than ×1 (the ``latency``
    experiment is ×1)."""
    out: dict[str, Any] = {}
    for f in FACTORS:
        if f != 1.0:
            out.update(scaled_workloads(wl, f))
    return out


def by_factor(
    main: pd.DataFrame, intensity: pd.DataFrame | None, series: str, schedulers: Sequence[str]
) -> dict[float, pd.DataFrame]:
    """Per factor, the runs of ``schedulers`` with plain workload names
    (×1 from the ``latency`` table)."""
    out = {1.0: main[main[series].isin(schedulers)]}
    if intensity is None or intensity.empty:
        return out
    parts = intensity["workload"].str.rsplit(_SEP, n=1, expand=True)
    t = intensity.assign(workload=parts[0], **{FACTOR_COL: parts[1].astype(float)})
    for f, g in t.groupby(FACTOR_COL):
        out[float(f)] = g.drop(columns=[FACTOR_COL])
    return dict(sorted(out.items()))


def _saturated_at(
    frames: Mapping[float, pd.DataFrame], series: str, sat_main: Sequence[str]
) -> dict[float, list[str]]:
    # ×1 keeps the main claims' exclusion (every scheduler of ``latency``
    # saturated); the other factors ran FIFO and AOS only, so there it is
    # "both saturated" (mean latency ≥ 100 ms, common.SATURATED_US).
    return {f: list(sat_main) if f == 1.0 else saturated(t, series) for f, t in frames.items()}


def geo_and_median(t: pd.DataFrame, cx: Compare) -> tuple[float | None, float | None]:
    """A claim as the reproductions average it (``compare``: geometric mean
    of the per-workload values) and the median of those values."""
    got = compare(t, cx)
    vals = per_workload(t, cx)
    return (None if got is None else got[0]), (float(vals.median()) if len(vals) else None)


def band_rows(
    frames: Mapping[float, pd.DataFrame],
    compares: Mapping[str, Compare],
    series: str,
    sat_main: Sequence[str],
) -> pd.DataFrame:
    """The ``intensity_band`` table: per factor, each claim's geometric mean
    and median over unsaturated workloads, and the saturated workloads."""
    sat = _saturated_at(frames, series, sat_main)
    rows = []
    for f, t in frames.items():
        row: dict[str, Any] = {FACTOR_COL: f}
        for cid, c in compares.items():
            cx = dataclasses.replace(c, average="geo", exclude=tuple(sat[f]))
            row[cid], row[f"{cid} (median)"] = geo_and_median(t, cx)
        row["workloads"] = len(set(t["workload"]))
        row["saturated"] = len(sat[f])
        row["saturated workloads"] = ", ".join(sat[f])
        rows.append(row)
    return pd.DataFrame(rows)


def band_note(table: pd.DataFrame, cid: str, unit: str) -> str:
    """The claim note's intensity part: the value at each factor and how
    many workloads were saturated there."""
    vals = []
    for _, r in table.iterrows():
        v = r[cid]
        s = "–" if v is None or pd.isna(v) else (f"×{v:.3g}" if unit == "×" else f"{v:.3g}")
        vals.append(s)
    facs = "/".join(f"×{_fmt(f)}" for f in table[FACTOR_COL])
    sats = "/".join(str(int(n)) for n in table["saturated"])
    return f"intensity {facs}: {' / '.join(vals)} (saturated {sats} workloads)"


def band_values(table: pd.DataFrame, cid: str) -> list[float]:
    """The claim's values over the factors (missing ones left out)."""
    return [float(v) for v in table[cid] if v is not None and not pd.isna(v)]


# SSDsim's two-plane pairing, a platform setting the AOS paper does not give
# (it does not say whether its SSDsim allocated statically or dynamically):
# the claims run ``relaxed`` (any free plane of the die, as SSDsim's dynamic
# allocation searches); the ``pairing`` experiment runs FIFO and AOS under
# ``same-block`` (SSDsim's static allocation: planes whose active blocks
# share an index, docs/validation.md item 11).
PAIRING_EXP = "pairing"
PAIRING_SET = "controller.multiplane=same-block"
PAIRING_COL = "two-plane pairing"


def pairing_rows(
    main: pd.DataFrame,
    pairing: pd.DataFrame,
    compares: Mapping[str, Compare],
    series: str,
    schedulers: Sequence[str],
    sat_main: Sequence[str],
) -> pd.DataFrame:
    """The ``pairing_band`` table: each claim (geometric mean and median
    over unsaturated workloads) under either pairing rule."""
    rows = []
    for rule, t, sat in (
        ("relaxed (the claims)", main[main[series].isin(schedulers)], list(sat_main)),
        ("same-block", pairing, saturated(pairing, series)),
    ):
        row: dict[str, Any] = {PAIRING_COL: rule}
        for cid, c in compares.items():
            cx = dataclasses.replace(c, average="geo", exclude=tuple(sat))
            row[cid], row[f"{cid} (median)"] = geo_and_median(t, cx)
        row["saturated workloads"] = ", ".join(sat)
        rows.append(row)
    return pd.DataFrame(rows)
