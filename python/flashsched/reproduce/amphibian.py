"""``amphibian``: B. Mao, S. Wu, L. Duan, "Improving the SSD Performance by
Exploiting Request Characteristics and Internal Parallelism", IEEE TCAD 2018
(/work/shared/papers/amphibian.md).

Published numbers: the Fig. 5 worked example, Postmark throughput (Fig. 8)
and its queue-length sensitivity (Fig. 9), and the per-trace mean response
time reductions on three Intel SSDs (Figs. 10-12, §IV-C).

How we reproduce them (assumptions, since the paper measured real drives):
- The eight traces (Table III) are not available offline; each is replaced by
  a random-access synthetic workload with the trace's read ratio, mean request
  size and IOPS × 10 (the paper replays traces 10× faster), plus the public
  MSR samples (hm_0, rsrch_0) replayed at 10× intensity when present.
- The three drives are modelled by cell type and channel count (X25-E: SLC,
  10 channels; DC S3700: MLC, 8 channels; 750 PCIe: MLC, 18 channels) on a
  reduced capacity, preconditioned 90 % full ("filled with data", §IV-A).
- Postmark is replaced by a closed-loop mixed workload (file-sized requests
  4 KiB–1 MiB, 50 % reads); Fig. 9's "queue length" is the number of
  outstanding requests, with a device queue depth of 4 so the host
  scheduler has the rest to order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flashsched.reproduce import figures as F
from flashsched.reproduce.base import Claim, Context, Figure, Measured, Reproduction, Results
from flashsched.reproduce.common import (
    Compare,
    matched_synthetic,
    measure_compares,
    per_trace_claims,
)

TRACES = ["Fin1", "Fin2", "Web1", "Web2", "Web3", "Proj_2", "Prxy_1", "Usr_1"]
# Table III: read ratio, IOPS, average request size (KB).
TABLE3 = {
    "Fin1": (0.328, 52, 11.9),
    "Fin2": (0.824, 127, 6.2),
    "Web1": (0.999, 335, 8.0),
    "Web2": (0.999, 331, 15.1),
    "Web3": (0.999, 218, 11.8),
    "Proj_2": (0.775, 81, 40.2),
    "Prxy_1": (0.653, 266, 12.5),
    "Usr_1": (0.855, 64, 45.4),
}
SSDS = {  # label: overrides (see the module doc)
    "x25e": [
        "timing.cell=slc",
        "timing.read_us=25",
        "timing.program_us=250",
        "timing.erase_us=1500",
        "geometry.channels=10",
    ],
    "s3700": [
        "timing.cell=mlc",
        "timing.read_us=50",
        "timing.program_us=900",
        "timing.erase_us=3500",
        "geometry.channels=8",
    ],
    "750s": [
        "timing.cell=mlc",
        "timing.read_us=50",
        "timing.program_us=900",
        "timing.erase_us=3500",
        "geometry.channels=18",
    ],
}
SSD_NAMES = {"x25e": "Intel X25-E", "s3700": "Intel DC S3700", "750s": "Intel 750 PCIe"}
SCHEDULERS = ["noop", "deadline", "cfq", "pardispatcher", "amphibian"]
FIG5_TRACE = "0 0 0 32 1\n0 0 20000 8 1\n0 0 40000 8 1\n0 0 60000 8 1\n"
FIG5_DEVICE = [
    "geometry.channels=1",
    "geometry.chips_per_channel=1",
    "geometry.dies_per_chip=1",
    "geometry.planes_per_die=1",
    "geometry.page_size=4096",
    "geometry.blocks_per_plane=256",
    "geometry.pages_per_block=64",
    "timing.read_us=50",
    "timing.channel_mb_s=0",
    "ftl.overprovisioning=0.25",
]

_FIGS = {"x25e": "Fig. 10", "s3700": "Fig. 11", "750s": "Fig. 12"}
_VS_NOOP = {
    "x25e": [12.4, 6.4, 23.5, 28.2, 25.0, 33.3, 28.2, 31.6],
    "s3700": [17.6, 8.7, 16.3, 13.6, 19.0, 35.1, 17.6, 38.9],
    "750s": [8.7, 13.4, 8.7, 7.5, 6.4, 19.0, 12.4, 13.6],
}
_VS_PARD = {
    "x25e": [6.3, 7.8, 22.1, 23.5, 23.8, 15.7, 19.6, 10.6],
    "s3700": [16.7, 13.2, 18.9, 19.3, 20.1, 19.6, 12.4, 24.2],
    "750s": [9.8, 15.2, 10.7, 10.6, 8.7, 6.7, 12.7, 10.2],
}
_AVG_NOOP = {"x25e": 22.9, "s3700": 20.1, "750s": 11.1}
_AVG_PARD = {"x25e": 16.4, "s3700": 18.0, "750s": 10.6}
_POSTMARK_NOOP = {"x25e": 28.2, "s3700": 27.9, "750s": 11.6}
_POSTMARK_PARD = {"x25e": 23.8, "s3700": 17.5, "750s": 9.0}
_QD64_NOOP = {"x25e": 35.9, "s3700": 33.1, "750s": 11.6}


def _claims() -> list[Claim]:
    red = "reduction of mean response time (%)"
    cl = [
        Claim(
            "fig5",
            "Fig. 5 example: Amphibian vs Noop",
            red,
            45.5,
            "R1 16 KB then R2-R4 4 KB, 50 µs/page",
            "Fig. 5, §III-B",
        )
    ]
    for ssd, name in SSD_NAMES.items():
        fig = _FIGS[ssd]
        cl += per_trace_claims(
            f"noop_{ssd}",
            TRACES,
            _VS_NOOP[ssd],
            f"Amphibian vs Noop on {name}, {{trace}}",
            red,
            fig,
        )
        cl.append(
            Claim(
                f"noop_{ssd}_avg",
                f"Amphibian vs Noop on {name}, average",
                red,
                _AVG_NOOP[ssd],
                "mean of 8 traces",
                fig,
            )
        )
        cl += per_trace_claims(
            f"pard_{ssd}",
            TRACES,
            _VS_PARD[ssd],
            f"Amphibian vs ParDispatcher on {name}, {{trace}}",
            red,
            fig,
        )
        cl.append(
            Claim(
                f"pard_{ssd}_avg",
                f"Amphibian vs ParDispatcher on {name}, average",
                red,
                _AVG_PARD[ssd],
                "mean of 8 traces",
                fig,
            )
        )
    gain = "throughput improvement (%)"
    for ssd, name in SSD_NAMES.items():
        cl.append(
            Claim(
                f"postmark_noop_{ssd}",
                f"Postmark: Amphibian vs Noop on {name}",
                gain,
                _POSTMARK_NOOP[ssd],
                "Postmark, queue length 16",
                "Fig. 8, §IV-B",
            )
        )
        cl.append(
            Claim(
                f"postmark_pard_{ssd}",
                f"Postmark: Amphibian vs ParDispatcher on {name}",
                gain,
                _POSTMARK_PARD[ssd],
                "Postmark, queue length 16",
                "Fig. 8, §IV-B",
            )
        )
        cl.append(
            Claim(
                f"qd64_noop_{ssd}",
                f"Postmark at queue length 64: vs Noop on {name}",
                gain,
                _QD64_NOOP[ssd],
                "Postmark, queue length 64",
                "Fig. 9, §IV-B",
            )
        )
    return cl


CLAIMS = _claims()


def _device(ssd: str, blocks: int) -> dict[str, Any]:
    return {
        "label": ssd,
        **{o.split("=")[0]: o.split("=")[1] for o in SSDS[ssd]},
        "geometry.blocks_per_plane": blocks,
    }


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    n = 4000 if ctx.quick else 200_000
    blocks = 64 if ctx.quick else 256
    ssds = ["x25e"] if ctx.quick else list(SSDS)
    names = ["Fin1", "Web1", "Usr_1"] if ctx.quick else TRACES
    wl: dict[str, Any] = {
        t: {"synthetic": matched_synthetic(TABLE3[t][0], TABLE3[t][1] * 10, TABLE3[t][2], n)}
        for t in names
    }
    for t, rel in (("hm_0", "msr/hm_0.first1000.csv"), ("rsrch_0", "msr/rsrch_0.first1000.csv")):
        if (p := ctx.trace(rel)) is not None:
            wl[t] = {"trace": p, "format": "msr", "intensity": 10}
    base = {"device": "default", "set": ["ftl.precondition_fill=0.9"], "queue_depth": 16}
    fig5 = Path(ctx.out) / "fig5.trace"
    fig5.parent.mkdir(parents=True, exist_ok=True)
    fig5.write_text(FIG5_TRACE)
    qds = [1, 2, 4, 16, 64] if ctx.quick else [1, 2, 4, 8, 16, 32, 64]
    pm_n = 3000 if ctx.quick else 100_000
    return {
        "fig5": {
            "name": "fig5",
            "base": {"device": "ssdsim-default", "set": FIG5_DEVICE, "queue_depth": 1},
            "workloads": {"fig5": {"trace": str(fig5), "format": "ascii-ns"}},
            "grid": {"host_scheduler": ["noop", "amphibian"]},
        },
        "traces": {
            "name": "traces",
            "base": base,
            "workloads": wl,
            "grid": {"host_scheduler": SCHEDULERS, "seed": [1]},
            "points": [_device(s, blocks) for s in ssds],
        },
        "postmark": {
            "name": "postmark",
            "base": {**base, "queue_depth": 4},
            "workloads": {
                f"qd{q}": {"synthetic": f"read=0.5,bs=4k-1m,qd={q},n={pm_n}"} for q in qds
            },
            "grid": {"host_scheduler": ["noop", "pardispatcher", "amphibian"], "seed": [1]},
            "points": [_device(s, blocks) for s in ssds],
        },
    }


def _compares() -> dict[str, Compare]:
    c: dict[str, Compare] = {
        "fig5": Compare("fig5", "latency_us.mean", "amphibian", "noop", workload="fig5")
    }
    for ssd in SSDS:
        w = {"label": ssd}
        for t in TRACES:
            c[f"noop_{ssd}_{t.lower()}"] = Compare(
                "traces", "latency_us.mean", "amphibian", "noop", workload=t, where=w
            )
            c[f"pard_{ssd}_{t.lower()}"] = Compare(
                "traces", "latency_us.mean", "amphibian", "pardispatcher", workload=t, where=w
            )
        c[f"noop_{ssd}_avg"] = Compare("traces", "latency_us.mean", "amphibian", "noop", where=w)
        c[f"pard_{ssd}_avg"] = Compare(
            "traces", "latency_us.mean", "amphibian", "pardispatcher", where=w
        )
        c[f"postmark_noop_{ssd}"] = Compare(
            "postmark", "iops", "amphibian", "noop", workload="qd16", kind="gain", where=w
        )
        c[f"postmark_pard_{ssd}"] = Compare(
            "postmark", "iops", "amphibian", "pardispatcher", workload="qd16", kind="gain", where=w
        )
        c[f"qd64_noop_{ssd}"] = Compare(
            "postmark", "iops", "amphibian", "noop", workload="qd64", kind="gain", where=w
        )
    return c


COMPARES = _compares()


def measure(res: Results, ctx: Context) -> dict[str, Measured]:
    return measure_compares(res, COMPARES)


def make_figures(res: Results, ctx: Context) -> list[Figure]:
    figs = []
    tr = res.table("traces")
    for ssd in tr["label"].unique():
        figs.append(
            F.normalized_bars(
                tr[tr["label"] == ssd],
                name=f"latency_{ssd}",
                title=f"Normalised mean response time, {SSD_NAMES[ssd]} (cf. {_FIGS[ssd]})",
                metric="latency_us.mean",
                series="host_scheduler",
                baseline="noop",
            )
        )
        sel = tr[(tr["label"] == ssd) & (tr["workload"] == tr["workload"].iloc[0])]
        figs.append(
            F.cdf_plot(
                res,
                "traces",
                sel,
                name=f"cdf_{ssd}",
                title=f"Response-time CDF, {SSD_NAMES[ssd]} (cf. Figs. 13-15)",
                label=lambda r: r["host_scheduler"],
            )
        )
    pm = res.table("postmark").assign(q=lambda d: d["workload"].str[2:].astype(int))
    for ssd in pm["label"].unique():
        figs.append(
            F.sensitivity(
                pm[pm["label"] == ssd],
                name=f"qd_{ssd}",
                title=f"Throughput vs queue length, {SSD_NAMES[ssd]} (cf. Fig. 9)",
                x="q",
                y="iops",
                series="host_scheduler",
                xlabel="queue length",
                ylabel="IOPS",
            )
        )
    return figs


REPRODUCTION = Reproduction(
    name="amphibian",
    title="Amphibian: size-based ordering and GC-aware dispatching (Mao et al., TCAD 2018)",
    citation="B. Mao, S. Wu, L. Duan, 'Improving the SSD Performance by Exploiting Request "
    "Characteristics and Internal Parallelism', IEEE TCAD 37(2), 2018",
    claims=CLAIMS,
    experiments=experiments,
    measure=measure,
    figures=make_figures,
    host_schedulers=tuple(SCHEDULERS),
    notes=__doc__ or "",
    runtime="not yet measured (needs the host-scheduler branch)",
)
