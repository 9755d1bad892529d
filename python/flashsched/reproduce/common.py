"""Helpers the paper modules share: claim lists per trace, synthetic
workloads matched to a paper's published trace statistics, and scheduler
comparisons that turn sweep tables into our number for a claim."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from flashsched.reproduce.base import Claim, Measured, Results


def per_trace_claims(
    prefix: str,
    traces: Sequence[str],
    values: Sequence[float],
    claim: str,
    metric: str,
    source: str,
    unit: str = "%",
) -> list[Claim]:
    """One claim per trace (``{prefix}_{trace}``), ``claim`` formatted with
    ``{trace}``."""
    if len(traces) != len(values):
        raise ValueError(f"{prefix}: {len(traces)} traces but {len(values)} values")
    return [
        Claim(f"{prefix}_{t.lower()}", claim.format(trace=t), metric, v, t, source, unit)
        for t, v in zip(traces, values)
    ]


def matched_synthetic(
    read_ratio: float, iops: float, mean_kib: float, n: int, span: str = "16g"
) -> str:
    """A random-access synthetic spec with a trace's read ratio, arrival rate
    and mean request size (sizes uniform on [4 KiB, 2·mean − 4 KiB], which has
    the given mean; at least one 4 KiB page)."""
    hi = max(4, round(2 * mean_kib - 4))
    bs = "4k" if hi <= 4 else f"4k-{hi}k"
    return f"read={read_ratio:g},bs={bs},iops={iops:g},n={n},span={span}"


@dataclass(frozen=True)
class Compare:
    """How to compute our number for a claim from an experiment's table:
    compare ``metric`` of the ``ours`` series against ``baseline``.

    ``kind``: ``reduction`` = (1 − ours/base)·100 (latency), ``gain`` =
    (ours/base − 1)·100 (throughput), ``ratio`` = ours/base. ``workload``
    None means the mean of the per-workload values (as the papers' "on
    average"). ``where`` filters other columns (e.g. a device or a wear stage).
    ``average``: ``mean`` of the per-workload values, or ``geo``: the value
    of the geometric mean of the per-workload ratios ours/base (robust when
    ratios span orders of magnitude, as normalised bars do). ``exclude``:
    workloads left out (saturated ones, see :func:`saturated`).
    """

    experiment: str
    metric: str
    ours: str
    baseline: str
    series: str = "host_sched"
    workload: str | None = None
    kind: str = "reduction"
    where: Mapping[str, Any] = field(default_factory=dict)
    average: str = "mean"
    exclude: tuple[str, ...] = ()


def _value(ours: float, base: float, kind: str) -> float:
    if kind == "reduction":
        return (1.0 - ours / base) * 100.0
    if kind == "gain":
        return (ours / base - 1.0) * 100.0
    if kind == "ratio":
        return ours / base
    raise ValueError(f"unknown comparison kind '{kind}'")


def _pairs(df: pd.DataFrame, c: Compare) -> list[tuple[str, float, float]]:
    """(workload, ours, baseline) for every workload ``c`` can compare."""
    sel = df
    for k, v in c.where.items():
        sel = sel[np.isclose(sel[k], v)] if isinstance(v, float) else sel[sel[k] == v]
    if c.workload is not None:
        sel = sel[sel["workload"] == c.workload]
    sel = sel[~sel["workload"].isin(c.exclude)]
    m = sel.groupby(["workload", c.series])[c.metric].mean().unstack(c.series)
    if c.ours not in m or c.baseline not in m:
        return []
    # a workload whose baseline is 0 (e.g. writes all absorbed by a DRAM
    # buffer) has no relative value: it is left out and not named
    return [
        (str(w), float(o), float(b))
        for w, o, b in zip(m.index, m[c.ours], m[c.baseline])
        if b and np.isfinite(b)
    ]


def per_workload(df: pd.DataFrame, c: Compare) -> pd.Series:
    """Our value for ``c`` on each workload it covers."""
    return pd.Series({w: _value(o, b, c.kind) for w, o, b in _pairs(df, c)}, dtype=float)


def compare(df: pd.DataFrame, c: Compare) -> tuple[float, str] | None:
    """Our value for ``c`` and the workloads it covers (None if not measurable)."""
    used = _pairs(df, c)
    if not used:
        return None
    pairs = [(o, b) for _, o, b in used]
    names = ", ".join(w for w, _, _ in used)
    if c.average == "geo":
        ratios = [o / b for o, b in pairs]
        if min(ratios) <= 0:  # a zero count: the geometric mean is undefined
            return None
        g = float(np.exp(np.mean(np.log(ratios))))
        return _value(g, 1.0, c.kind), names
    if c.average != "mean":
        raise ValueError(f"unknown average '{c.average}'")
    return float(np.mean([_value(o, b, c.kind) for o, b in pairs])), names


# A workload is saturated when every scheduler's mean request latency
# reaches this: the device cannot keep up whatever the scheduler (the
# samples that do are replays whose IOPS stays pinned at any intensity, 1x
# included, with latency 100-800 ms; issue 18). Such runs measure queueing
# in the host queue, not scheduling, and are reported apart from the
# averages. A workload only the baseline saturates stays in: that is a
# scheduling result.
SATURATED_US = 100_000.0


def saturated(df: pd.DataFrame, series: str, limit_us: float = SATURATED_US) -> list[str]:
    """Workloads on which every ``series`` value (scheduler) averages a
    request latency of at least ``limit_us`` (over every other setting in
    ``df``)."""
    if df.empty:
        return []
    lat = df.groupby(["workload", series])["latency_us.mean"].mean().unstack(series)
    worst_case_fast = lat.min(axis=1)
    return sorted(str(w) for w, v in worst_case_fast.items() if v >= limit_us)


def measure_compares(
    res: Results,
    compares: Mapping[str, Compare],
    saturated_of: Mapping[str, list[str]] | None = None,
) -> dict[str, Measured]:
    """Our numbers for every claim id in ``compares`` whose experiment ran.
    Averaged claims leave out the workloads ``saturated_of[experiment]``
    names and note the median of the per-workload values and the average
    with the saturated ones included."""
    out = {}
    for cid, c in compares.items():
        if c.experiment not in res.tables:
            continue
        df = res.table(c.experiment)
        sat = tuple((saturated_of or {}).get(c.experiment, ()))
        cx = replace(c, exclude=(*c.exclude, *sat)) if c.workload is None else c
        got = compare(df, cx)
        if got is None:
            continue
        notes = []
        if c.workload is None:
            vals = per_workload(df, cx)
            if len(vals) > 1:
                notes.append(f"median {float(vals.median()):.4g}")
            if sat and (with_sat := compare(df, c)) is not None:
                notes.append(f"saturated, left out: {', '.join(sat)}; with them {with_sat[0]:.4g}")
        out[cid] = Measured(got[0], got[1], "; ".join(notes))
    return out


# SSDsim's controller model (the ``ssdsim-default`` preset's, docs/model.md)
# for another preset whose paper ran on SSDsim: a chip busy while any of its
# dies runs a command, reads one page per command, GC holding its chip until
# the victim is erased, the LRU write buffer (128 KiB counted in sectors,
# writes evicted at once, 1000 ns per buffered request), flash writes
# acknowledged at the end of their data-in, only the sectors asked for on the
# bus, a partial page's other valid sectors read before it is programmed
# (SSDsim's update reads, with its trace pre-pass), a read of a page another
# queued read is reading done in 1000 ns without flash (its shared reads),
# 7 t_WC of command cycles on the bus for each read and program (25 ns t_WC
# in both presets that use this), a read's before waiting data-outs (its
# step loop), and FIFO = in-order FCFS per chip with reads first. Die-interleaved and
# multi-plane commands (whose data-ins SSDsim overlaps) are separate
# (``SSDSIM_ADVANCED``): a paper states whether its platform used them.
SSDSIM_CONTROLLER = [
    "controller.scheduler=ssdsim-fcfs",
    "controller.ssdsim-fcfs.order=reads-first",
    "controller.busy_unit=chip",
    "controller.write_ack=data-in",
    "controller.advanced_reads=false",
    "timing.sector_transfers=true",
    "ftl.gc_mode=blocking",
    "ftl.gc_block_unit=chip",
    "cache.mib=0.125",
    "cache.policy=ssdsim-lru",
    "cache.sectors=true",
    "cache.dram_mb_s=10000000",
    "cache.dram_latency_ns=1000",
    "cache.dram_serial=false",
    "ftl.update_reads=ssdsim",
    "controller.shared_reads=true",
    "timing.read_command_ns=175",
    "timing.program_command_ns=175",
    "timing.program_command_plane_ns=175",
    "controller.read_commands_first=true",
]
SSDSIM_ADVANCED = [
    "controller.interleave=true",
    "controller.multiplane=relaxed",
    "controller.overlap_data_in=true",
]
# Reads paired into multi-plane and interleaved commands on the papers'
# SSDsim platform: AOS builds multi-plane commands of reads as of writes
# (§III) and its evaluation counts them in FLP (Fig. 5). The SSDsim this
# project validates against (f411289) never pairs reads, a defect of its read
# search (docs/validation.md), which ``ssdsim-default`` copies
# (``controller.advanced_reads = false``); the reproductions do not assume the
# authors' platform had it.
PAIRED_READS = ["controller.advanced_reads=true"]

SSDSIM_BASIC = [
    "controller.interleave=false",
    "controller.multiplane=off",
    "controller.overlap_data_in=false",
]
