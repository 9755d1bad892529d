"""``aos``: P. Li, F. Wu, Y. Zhou, C. Xie, J. Yu, "AOS: Adaptive Out-of-order
Scheduling for Write-caused Interference Reduction in Solid State Disks",
IMECS 2015 (/work/shared/papers/aos.md).

Published numbers: read/write latency of FIFO, PIQ, P/E suspension and AOS
normalised to FIFO (Fig. 3), write-caused interference and channel-level
conflicts (Fig. 4), flash- and system-level parallelism (Fig. 5).

How we reproduce them: the paper extends SSDsim, so the device is the
``ssdsim-default`` preset (preconditioned 90 % full). Its enterprise traces
(EX, FIN1/FIN2, MSN) are not available offline; we use the public MSR
samples (replayed at 10× intensity) and a synthetic 50/50 mix. Channel-level
conflicts use the summary's ``flash.channel_conflicts``; write-caused
interference ``flash.interfered_reads``, FLP ``flash.flp`` and SLP
``flash.slp_chips`` (docs/devsched.md).
"""

from __future__ import annotations

from typing import Any

from flashsched.reproduce import figures as F
from flashsched.reproduce.base import Claim, Context, Figure, Measured, Reproduction, Results
from flashsched.reproduce.common import Compare, measure_compares

SCHEDULERS = ["fifo", "piq", "pe-suspend", "aos"]
SAMPLES = {
    "rw_20_80": "msr/msr.cut.per_10k.rw_20_80.105.trace",
    "rw_40_60": "msr/msr.cut.per_10k.rw_40_60.1370.trace",
    "rand_iops": "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
    "hm_0": "msr/hm_0.first1000.csv",
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

COMPARES = {
    "read_fifo": Compare("latency", "read_latency_us.mean", "aos", "fifo", "device_scheduler"),
    "write_fifo": Compare("latency", "write_latency_us.mean", "aos", "fifo", "device_scheduler"),
    "read_pes": Compare("latency", "read_latency_us.mean", "aos", "pe-suspend", "device_scheduler"),
    "write_pes": Compare(
        "latency", "write_latency_us.mean", "aos", "pe-suspend", "device_scheduler"
    ),
    "channel_conflicts": Compare(
        "latency", "flash.channel_conflicts", "aos", "fifo", "device_scheduler"
    ),
    "interference": Compare("latency", "flash.interfered_reads", "aos", "fifo", "device_scheduler"),
    "flp": Compare("latency", "flash.flp", "aos", "fifo", "device_scheduler", kind="ratio"),
    **{
        f"slp_{key}": Compare(
            "latency", "flash.slp_chips", "aos", base, "device_scheduler", kind="ratio"
        )
        for key, base in (("fifo", "fifo"), ("pes", "pe-suspend"), ("piq", "piq"))
    },
}


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    names = ["rw_20_80", "rw_40_60"] if ctx.quick else list(SAMPLES)
    wl: dict[str, Any] = {}
    for n in names:
        if (p := ctx.trace(SAMPLES[n])) is not None:
            wl[n] = {"trace": p, "intensity": 10}
            if ctx.quick:
                wl[n]["limit"] = 3000
    count = 4000 if ctx.quick else 200_000
    wl["mix50"] = {"synthetic": f"read=0.5,bs=4k-16k,iops=8000,n={count}"}
    return {
        "latency": {
            "name": "latency",
            "base": {
                "device": "ssdsim-default",
                # §IV-B4: AOS's write buffer is 2 MB (working + dispatching
                # region); every scheduler gets the same DRAM buffer.
                "set": ["ftl.precondition_fill=0.9", "ftl.write_buffer_mib=2"],
                "queue_depth": 32,
            },
            "workloads": wl,
            "grid": {"device_scheduler": SCHEDULERS, "seed": [1]},
        }
    }


def measure(res: Results, ctx: Context) -> dict[str, Measured]:
    return measure_compares(res, COMPARES)


def make_figures(res: Results, ctx: Context) -> list[Figure]:
    t = res.table("latency")
    return [
        F.normalized_bars(
            t,
            name="read_latency",
            title="Read latency normalised to FIFO (cf. Fig. 3a)",
            metric="read_latency_us.mean",
            series="device_scheduler",
            baseline="fifo",
        ),
        F.normalized_bars(
            t,
            name="write_latency",
            title="Write latency normalised to FIFO (cf. Fig. 3b)",
            metric="write_latency_us.mean",
            series="device_scheduler",
            baseline="fifo",
        ),
    ]


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
    runtime="not yet measured (needs the device-scheduler branch)",
)
