"""``aos``: P. Li, F. Wu, Y. Zhou, C. Xie, J. Yu, "AOS: Adaptive Out-of-order
Scheduling for Write-caused Interference Reduction in Solid State Disks",
IMECS 2015 (/work/shared/papers/aos.md).

Published numbers (§IV-B): read/write latency of FIFO, PIQ, P/E suspension
and AOS normalised to FIFO (Fig. 3), write-caused interference and
channel-level conflicts (Fig. 4), flash- and system-level parallelism
(Fig. 5), each "on average" over EX, FIN1, FIN2 and MSN.

How we reproduce them — the settings of the device-scheduler evaluation
(docs/devsched.md, ``crates/flashsched-core/examples/devsched_eval.rs aos``): the paper extends
SSDsim, so the device is the ``ssdsim-default`` preset, preconditioned to
70 % full, and every scheduler gets the 2 MB DRAM write buffer of AOS's
architecture (Fig. 2, §IV-B4; without it AOS holds writes in host queue
slots and collapses at high load, docs/devsched.md). The enterprise traces
are not available offline; the workloads are the eight public samples of
/work/shared/traces replayed at 20× their recorded arrival rate plus two
synthetic write-heavy mixes (``synth_r30``: 30 % reads, 2–16 KiB, 6000 IOPS;
``synth_r50``: 50 % reads, 2–8 KiB, 8000 IOPS; 30 000 requests each, 2 GiB
span). Like the paper's "on average", a claim is the geometric mean over
workloads of AOS/baseline (reduction = 1 − that ratio); a workload whose
baseline value is 0 is left out and not named (write latency is 0 when the
buffer absorbs every write: rsrch_0, ssdsim_example, synth_r50). Counters: read/write
latency means, ``flash.interfered_reads`` (reads that waited behind a
program/erase on their die), ``flash.channel_conflicts``, ``flash.flp``,
``flash.slp_chips`` (docs/devsched.md, Metrics).

Experiments: ``latency`` (the claims) and, in the full run only,
``nobuf`` — the same runs without the DRAM write buffer (the evaluation's
ablation: AOS then loses badly at high load, docs/devsched.md).

``--quick`` runs ``latency`` exactly as the full run does (about 10 s on 2
cores), so its numbers — and their directions — are the full run's; only the
``nobuf`` ablation is left out. (A truncated subset of the traces was tried
and rejected: with the first 2000 requests AOS beats P/E suspension on
reads, the opposite of the full run.)

Not measurable offline: the EX best case (87 %) needs the EX trace.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from flashsched.legacy import SSDSIM_PLAIN
from flashsched.reproduce import figures as F
from flashsched.reproduce.base import Claim, Context, Figure, Measured, Reproduction, Results
from flashsched.reproduce.common import Compare, measure_compares

SCHEDULERS = ["fifo", "piq", "pe-suspend", "aos"]
# The evaluation's workloads (examples/devsched_eval.rs): samples at 20x.
SAMPLES = {
    "hm_0": "msr/hm_0.first1000.csv",
    "rsrch_0": "msr/rsrch_0.first1000.csv",
    "rw_20_80": "msr/msr.cut.per_10k.rw_20_80.105.trace",
    "rw_40_60": "msr/msr.cut.per_10k.rw_40_60.1370.trace",
    "rand_iops": "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
    "tpcc": "ascii/tpcc-small.mqsim-ns.trace",
    "ssdsim_example": "ascii/ssdsim-example.ns.ascii",
    "fiu_mail": "blkparse/fiu-mail-cheetah.first10000.blkparse",
}
INTENSITY = 20
SYNTHETIC = {
    "synth_r30": "read=0.3,bs=2k-16k,iops=6000,n=30000,span=2g,seed=3",
    "synth_r50": "read=0.5,bs=2k-8k,iops=8000,n=30000,span=2g,seed=4",
}
ALL = "EX, FIN1, FIN2, MSN (mean)"
RED = "reduction (%)"
CLAIMS = [
    Claim(
        "read_fifo",
        "AOS vs FIFO: read latency",
        f"read latency {RED}",
        51,
        ALL,
        "Fig. 3(a), §IV-B1; abstract",
    ),
    Claim(
        "read_fifo_ex",
        "AOS vs FIFO: read latency, best case",
        f"read latency {RED}",
        87,
        "EX",
        "Fig. 3(a), §IV-B1",
    ),
    Claim(
        "write_fifo",
        "AOS vs FIFO: write latency",
        f"write latency {RED}",
        45,
        ALL,
        "Fig. 3(b), §IV-B1; abstract",
    ),
    Claim(
        "read_pes",
        "AOS vs P/E suspension: read latency",
        f"read latency {RED}",
        8,
        ALL,
        "Fig. 3(a), §IV-B1",
    ),
    Claim(
        "write_pes",
        "AOS vs P/E suspension: write latency",
        f"write latency {RED}",
        22,
        ALL,
        "Fig. 3(b), §IV-B1",
    ),
    Claim(
        "interference",
        "AOS vs FIFO: write-caused interference",
        RED,
        55,
        ALL,
        "Fig. 4(a), §IV-B2; §I",
    ),
    Claim(
        "channel_conflicts",
        "AOS vs FIFO: channel-level access conflicts",
        RED,
        31,
        ALL,
        "Fig. 4(b), §IV-B2",
    ),
    Claim(
        "flp",
        "AOS vs FIFO: flash-level parallelism",
        "gain (×)",
        2.0,
        ALL,
        "Fig. 5(a), §IV-B3",
        "×",
    ),
    Claim(
        "slp_fifo",
        "AOS vs FIFO: system-level parallelism",
        "gain (×)",
        1.3,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
    Claim(
        "slp_pes",
        "AOS vs P/E suspension: system-level parallelism",
        "gain (×)",
        1.2,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
    Claim(
        "slp_piq",
        "AOS vs PIQ: system-level parallelism",
        "gain (×)",
        1.08,
        ALL,
        "Fig. 5(b), §IV-B3",
        "×",
    ),
]

DS = "device_sched"
EXP = "latency"
NOBUF = "nobuf"  # ablation: no DRAM write buffer


def _cmp(metric: str, base: str, kind: str = "reduction") -> Compare:
    return Compare(EXP, metric, "aos", base, DS, kind=kind, average="geo")


COMPARES = {
    "read_fifo": _cmp("read_latency_us.mean", "fifo"),
    "write_fifo": _cmp("write_latency_us.mean", "fifo"),
    "read_pes": _cmp("read_latency_us.mean", "pe-suspend"),
    "write_pes": _cmp("write_latency_us.mean", "pe-suspend"),
    "interference": _cmp("flash.interfered_reads", "fifo"),
    "channel_conflicts": _cmp("flash.channel_conflicts", "fifo"),
    "flp": _cmp("flash.flp", "fifo", "ratio"),
    "slp_fifo": _cmp("flash.slp_chips", "fifo", "ratio"),
    "slp_pes": _cmp("flash.slp_chips", "pe-suspend", "ratio"),
    "slp_piq": _cmp("flash.slp_chips", "piq", "ratio"),
}
UNMEASURABLE = {
    "read_fifo_ex": "the EX (Exchange) trace is not available offline; "
    "no sample stands in for a single named trace",
}


def workloads(ctx: Context) -> dict[str, Any]:
    """The evaluation's workloads (the same in ``--quick``)."""
    wl: dict[str, Any] = {}
    for n, rel in SAMPLES.items():
        if (p := ctx.trace(rel)) is not None:
            wl[n] = {"trace": p, "intensity": INTENSITY}
    for n, spec in SYNTHETIC.items():
        wl[n] = {"synthetic": spec}
    return wl


def _experiment(name: str, buffer_mib: int, wl: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": name,
        "base": {
            "device": "ssdsim-default",
            "set": [*SSDSIM_PLAIN, "ftl.precondition_fill=0.7", f"cache.mib={buffer_mib}"],
        },
        "workloads": wl,
        "grid": {DS: SCHEDULERS, "seed": [1]},
    }


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    wl = workloads(ctx)
    # §IV-B4: AOS's write buffer is 2 MB (working + dispatching region);
    # every scheduler gets the same DRAM buffer.
    out = {EXP: _experiment(EXP, 2, wl)}
    if not ctx.quick:
        out[NOBUF] = _experiment(NOBUF, 0, wl)
    return out


def measure(res: Results, ctx: Context) -> dict[str, Measured]:
    out = measure_compares(res, COMPARES)
    for cid, why in UNMEASURABLE.items():
        out[cid] = Measured(float("nan"), "", why)
    return out


FIGS = [
    ("read_latency", "read_latency_us.mean", "Read latency normalised to FIFO (cf. Fig. 3a)"),
    ("write_latency", "write_latency_us.mean", "Write latency normalised to FIFO (cf. Fig. 3b)"),
    (
        "interference",
        "flash.interfered_reads",
        "Write-caused interference normalised to FIFO (cf. Fig. 4a)",
    ),
    (
        "channel_conflicts",
        "flash.channel_conflicts",
        "Channel-level conflicts normalised to FIFO (cf. Fig. 4b)",
    ),
    ("flp", "flash.flp", "Flash-level parallelism normalised to FIFO (cf. Fig. 5a)"),
    ("slp", "flash.slp_chips", "System-level parallelism normalised to FIFO (cf. Fig. 5b)"),
]


# the summary figure's groups, in words
SUMMARY_NAMES = {
    "read_latency": "read latency",
    "write_latency": "write latency",
    "interference": "write-caused interference",
    "channel_conflicts": "channel conflicts",
    "flp": "flash-level parallelism",
    "slp": "system-level parallelism",
}


def _geomean_by_scheduler(t: pd.DataFrame) -> pd.DataFrame:
    """Geometric mean over workloads of each metric normalised to FIFO, as
    the claims compute it (workloads where FIFO's value is 0 left out)."""
    rows = {}
    for name, metric, _ in FIGS:
        wide = t.groupby(["workload", DS])[metric].mean().unstack(DS)
        wide = wide[wide["fifo"] > 0]
        norm = wide.div(wide["fifo"], axis=0).where(lambda x: x > 0)
        rows[SUMMARY_NAMES[name]] = np.exp(np.log(norm).mean())
    return pd.DataFrame(rows).T.reindex(columns=[s for s in SCHEDULERS if s in t[DS].unique()])


def make_figures(res: Results, ctx: Context) -> list[Figure]:
    t = res.table(EXP)
    figs = [
        F.normalized_bars(t, name=name, title=title, metric=metric, series=DS, baseline="fifo")
        for name, metric, title in FIGS
    ]
    figs.append(
        F.grouped_bars(
            _geomean_by_scheduler(t),
            name="summary",
            title="Geometric mean over workloads, normalised to FIFO (Figs. 3-5)",
            ylabel="value normalised to FIFO (geometric mean)",
            hlines=[("FIFO = 1", 1.0)],
        )
    )
    if NOBUF in res.tables:
        figs.append(
            F.normalized_bars(
                res.table(NOBUF),
                name="read_latency_nobuf",
                title="Read latency normalised to FIFO, no write buffer (ablation)",
                metric="read_latency_us.mean",
                series=DS,
                baseline="fifo",
            )
        )
    return figs


RUNTIME = (
    "full run: 11.5 s wall on 2 shared cores, 9.9 s CPU, 190 MB RSS, 80 runs; "
    "quick: the same 40-run latency experiment, ~10 s"
)

REPRODUCTION = Reproduction(
    name="aos",
    title="AOS: adaptive out-of-order device scheduling (Li et al., IMECS 2015)",
    citation="P. Li, F. Wu, Y. Zhou, C. Xie, J. Yu, 'AOS: Adaptive Out-of-order Scheduling "
    "for Write-caused Interference Reduction in Solid State Disks', IMECS 2015",
    claims=CLAIMS,
    experiments=experiments,
    measure=measure,
    figures=make_figures,
    device_schedulers=tuple(SCHEDULERS),
    notes=__doc__ or "",
    runtime=RUNTIME,
)
