"""``foundation``: the simulator against queueing theory and GC theory.

Needs nothing beyond the foundation (noop/fifo, the FTL's victim policies),
so it exercises the whole pipeline end to end and gives users validation
plots:

1. **M/D/1** (``md1``). One plane, reads of one 4 KiB page taking exactly
   S = 100 µs (infinite bus, no command overhead), Poisson arrivals at rate
   λ = ρ/S, FIFO everywhere: the device is an M/D/1 queue, whose mean
   response time is the Pollaczek–Khinchine value S + ρS / (2(1 − ρ)) and
   whose response-time distribution is S plus Erlang's M/D/1 waiting time
   (compared over the whole CDF and at the 99th percentile).
2. **WAF vs over-provisioning** (``gc_waf``). Uniform random 4 KiB writes on
   a preconditioned single-plane device, for every victim policy. Theory
   lines: FIFO (= LRW) victim selection, WAF = α / (α + W₀(−α e^(−α))) with
   α = physical/logical pages (Desnoyers, SYSTOR 2012, eq. for LRW; also
   Hu et al., SYSTOR 2009), and random victim selection, whose victim holds
   on average the mean valid fraction 1/α, so WAF = 1 / (1 − 1/α). Both
   assume many blocks and ignore the GC reserve (``ftl.gc_threshold``) and
   the open frontier blocks, which lower the effective α slightly, so
   simulated FIFO WAF sits a little above its line at low over-provisioning.
   The FTL never picks a block whose pages are all valid (no space to gain,
   `ftl/mod.rs` `gc_begin`), which keeps random selection away from freshly
   sealed blocks, so simulated random-victim WAF sits slightly *below* its
   line. Greedy and cost-benefit should beat FIFO; random is worst.
3. **GC policy on the sample traces** (``traces_gc``): mean response time per
   trace, normalised to greedy, and per-second bandwidth; skipped when the
   traces are absent.

The "published" numbers of this reproduction are the theoretical values.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import Any

import numpy as np

from flashsched.legacy import SSDSIM_PLAIN
from flashsched.reproduce import figures as F
from flashsched.reproduce.base import Claim, Context, Figure, Measured, Reproduction, Results

SERVICE_US = 100.0
ONE_PLANE = [
    *SSDSIM_PLAIN,  # the theory's device: no buffer, GC interleaved
    "geometry.channels=1",
    "geometry.chips_per_channel=1",
    "geometry.dies_per_chip=1",
    "geometry.planes_per_die=1",
    "geometry.page_size=4096",
    "timing.channel_mb_s=0",
    "timing.command_us=0",
]
MD1_DEVICE = [
    *ONE_PLANE,
    "geometry.blocks_per_plane=64",
    "geometry.pages_per_block=64",
    f"timing.read_us={SERVICE_US}",
    "host.queue_depth=1024",
]
POLICIES = ["greedy", "cost-benefit", "d-choice", "fifo", "random"]
TRACES = {
    "hm_0": ("msr/hm_0.first1000.csv", "msr"),
    "rsrch_0": ("msr/rsrch_0.first1000.csv", "msr"),
    "rw_20_80": ("msr/msr.cut.per_10k.rw_20_80.105.trace", "auto"),
    "rw_40_60": ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "auto"),
}


def lambert_w0(x: float) -> float:
    """Principal branch of Lambert W for -1/e <= x (Halley iteration)."""
    if x < -1.0 / math.e:
        raise ValueError("lambert_w0: x < -1/e")
    w = 0.0 if x > -0.25 else -1.0 + math.sqrt(2.0 * (1.0 + math.e * x))
    for _ in range(100):
        ew = math.exp(w)
        f = w * ew - x
        step = f / (ew * (w + 1) - (w + 2) * f / (2 * w + 2)) if w != -1 else 0.0
        w -= step
        if abs(step) < 1e-14:
            break
    return w


def waf_fifo(op: float) -> float:
    """WAF of FIFO/LRW victim selection under uniform random writes."""
    a = 1.0 / (1.0 - op)
    return a / (a + lambert_w0(-a * math.exp(-a)))


def waf_random(op: float) -> float:
    """WAF of uniformly random victim selection under uniform random writes."""
    return 1.0 / op


def md1_mean_us(rho: float, s: float = SERVICE_US) -> float:
    """Pollaczek–Khinchine mean response time of an M/D/1 queue."""
    return s + rho * s / (2.0 * (1.0 - rho))


def md1_response_cdf(t: float, rho: float, s: float = SERVICE_US) -> float:
    """P(response time <= t) of an M/D/1 FCFS queue: the waiting time W has
    Erlang's distribution P(W <= w) = (1 - ρ) Σ_{k=0}^{⌊w/S⌋} e^{-λ(kS - w)}
    (λ(kS - w))^k / k!, and response = W + S. The alternating sum cancels
    heavily, so it is evaluated with 60-digit decimals."""
    w = t - s
    if w < 0:
        return 0.0
    with localcontext() as ctx:
        ctx.prec = 60
        lam, wd, sd = Decimal(rho) / Decimal(s), Decimal(w), Decimal(s)
        total, fact = Decimal(0), Decimal(1)
        for k in range(int(w // s) + 1):
            if k:
                fact *= k
            x = lam * (k * sd - wd)
            total += (x**k if k else Decimal(1)) / fact * (-x).exp()
        return float(min(Decimal(1), (1 - Decimal(rho)) * total))


def md1_response_quantile(q: float, rho: float, s: float = SERVICE_US) -> float:
    """The q-quantile of the M/D/1 response time (bisection to 0.01 µs)."""
    lo, hi = s, s * 2
    while md1_response_cdf(hi, rho, s) < q:
        hi *= 2
    while hi - lo > 0.01:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if md1_response_cdf(mid, rho, s) < q else (lo, mid)
    return hi


CLAIMS = [
    Claim(
        "md1_05",
        "M/D/1 mean response time, ρ = 0.5",
        "mean response time",
        md1_mean_us(0.5),
        "Poisson 4 KiB reads, S = 100 µs",
        "Pollaczek–Khinchine",
        "µs",
    ),
    Claim(
        "md1_08",
        "M/D/1 mean response time, ρ = 0.8",
        "mean response time",
        md1_mean_us(0.8),
        "Poisson 4 KiB reads, S = 100 µs",
        "Pollaczek–Khinchine",
        "µs",
    ),
    Claim(
        "md1_09",
        "M/D/1 mean response time, ρ = 0.9",
        "mean response time",
        md1_mean_us(0.9),
        "Poisson 4 KiB reads, S = 100 µs",
        "Pollaczek–Khinchine",
        "µs",
    ),
    Claim(
        "md1_p99_08",
        "M/D/1 99th-percentile response time, ρ = 0.8",
        "p99 response time",
        md1_response_quantile(0.99, 0.8),
        "Poisson 4 KiB reads, S = 100 µs",
        "Erlang's M/D/1 waiting-time distribution",
        "µs",
    ),
    Claim(
        "waf_fifo_28",
        "FIFO victim WAF at 28 % over-provisioning",
        "write amplification",
        waf_fifo(0.28),
        "uniform random 4 KiB writes",
        "Desnoyers 2012 (LRW model)",
        "×",
    ),
    Claim(
        "waf_fifo_15",
        "FIFO victim WAF at 15 % over-provisioning",
        "write amplification",
        waf_fifo(0.15),
        "uniform random 4 KiB writes",
        "Desnoyers 2012 (LRW model)",
        "×",
    ),
    Claim(
        "waf_random_28",
        "random victim WAF at 28 % over-provisioning",
        "write amplification",
        waf_random(0.28),
        "uniform random 4 KiB writes",
        "mean field: 1/(1 − 1/α)",
        "×",
    ),
]


def _md1_spec(ctx: Context) -> dict[str, Any]:
    rhos = (
        [0.1, 0.3, 0.5, 0.7, 0.8, 0.9]
        if ctx.quick
        else [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    )
    n = 100_000 if ctx.quick else 400_000
    iops = 1e6 / SERVICE_US
    return {
        "name": "md1",
        "description": "M/D/1: Poisson 4 KiB reads on one plane with a 100 µs read",
        "base": {"device": "ssdsim-default", "set": MD1_DEVICE},
        "workloads": {
            f"rho={r:.2f}": {"synthetic": f"read=1,bs=4k,iops={r * iops:g},n={n}"} for r in rhos
        },
        "grid": {"seed": [1, 2] if ctx.quick else [1, 2, 3]},
        "output": {"timeseries": False},
    }


def _waf_spec(ctx: Context) -> dict[str, Any]:
    blocks, ppb = (128, 64) if ctx.quick else (512, 128)
    ops = (
        [0.07, 0.15, 0.28, 0.4] if ctx.quick else [0.05, 0.07, 0.1, 0.15, 0.2, 0.28, 0.35, 0.4, 0.5]
    )
    n = (4 if ctx.quick else 6) * blocks * ppb
    return {
        "name": "gc_waf",
        "description": "WAF vs over-provisioning per GC victim policy, uniform random writes",
        "base": {
            "device": "ssdsim-default",
            "set": [
                *ONE_PLANE,
                f"geometry.blocks_per_plane={blocks}",
                f"geometry.pages_per_block={ppb}",
                "timing.read_us=20",
                "timing.program_us=200",
                "timing.erase_us=1500",
                "ftl.precondition_fill=1.0",
                "ftl.gc_threshold=0.02",
            ],
        },
        "workloads": {"randwrite": {"synthetic": f"read=0,bs=4k,qd=4,n={n}"}},
        "grid": {
            "ftl.gc_policy": POLICIES,
            "ftl.overprovisioning": ops,
            "seed": [1] if ctx.quick else [1, 2, 3],
        },
        "output": {"cdf": False, "timeseries": False},
    }


def _traces_spec(ctx: Context) -> dict[str, Any] | None:
    names = ["hm_0", "rw_20_80"] if ctx.quick else list(TRACES)
    wl = {}
    for n in names:
        path = ctx.trace(TRACES[n][0])
        if path is not None:
            wl[n] = {"trace": path, "format": TRACES[n][1], "intensity": 10}
            if ctx.quick:
                wl[n]["limit"] = 3000
    if not wl:
        return None
    return {
        "name": "traces_gc",
        "description": "GC victim policies on the sample MSR traces (10x intensity)",
        "base": {
            "device": "ssdsim-default",
            "set": [*SSDSIM_PLAIN, "ftl.precondition_fill=0.9"],
        },
        "workloads": wl,
        "grid": {"ftl.gc_policy": ["greedy", "cost-benefit", "fifo", "random"], "seed": [1]},
    }


def experiments(ctx: Context) -> dict[str, dict[str, Any]]:
    exps = {"md1": _md1_spec(ctx), "gc_waf": _waf_spec(ctx)}
    traces = _traces_spec(ctx)
    if traces is not None:
        exps["traces_gc"] = traces
    return exps


def _rho(workload: str) -> float:
    return float(workload.split("=")[1])


WAF_NOTES = {
    "fifo": "the GC reserve the theory ignores lowers the effective spare space",
    "random": "the FTL never picks a fully valid block, which helps random selection",
}


def measure(res: Results, ctx: Context) -> dict[str, Measured]:
    out: dict[str, Measured] = {}
    md1 = res.table("md1").assign(rho=lambda d: d["workload"].map(_rho))
    for cid, rho in (("md1_05", 0.5), ("md1_08", 0.8), ("md1_09", 0.9)):
        sel = md1[np.isclose(md1["rho"], rho)]
        if len(sel):
            n = int(sel["requests"].iloc[0])
            out[cid] = Measured(
                float(sel["latency_us.mean"].mean()), f"ρ = {rho}, {n} reads × {len(sel)} seeds"
            )
    sel = md1[np.isclose(md1["rho"], 0.8)]
    if len(sel):
        out["md1_p99_08"] = Measured(
            float(sel["latency_us.p99"].mean()),
            f"ρ = 0.8, {int(sel['requests'].iloc[0])} reads × {len(sel)} seeds",
            "histogram p99 (0.1 % resolution)",
        )
    waf = res.table("gc_waf")
    for cid, pol, op in (
        ("waf_fifo_28", "fifo", 0.28),
        ("waf_fifo_15", "fifo", 0.15),
        ("waf_random_28", "random", 0.28),
    ):
        sel = waf[(waf["ftl.gc_policy"] == pol) & np.isclose(waf["ftl.overprovisioning"], op)]
        if len(sel):
            out[cid] = Measured(
                float(sel["waf"].mean()),
                f"{int(sel['requests'].iloc[0])} random writes, one plane of "
                f"{int(sel['precondition.live_pages'].iloc[0])} live pages",
                WAF_NOTES[pol],
            )
    return out


def make_figures(res: Results, ctx: Context) -> list[Figure]:
    figs = []
    md1 = res.table("md1").assign(rho=lambda d: d["workload"].map(_rho))
    xs = np.linspace(0.05, float(md1["rho"].max()), 100)
    figs.append(
        F.sensitivity(
            md1,
            name="md1_mean",
            title="M/D/1: mean response time vs utilisation",
            x="rho",
            y="latency_us.mean",
            theory=[("Pollaczek–Khinchine", xs, [md1_mean_us(float(r)) for r in xs])],
            xlabel="utilisation ρ",
            ylabel="mean response time (µs)",
            caption="One plane, 100 µs reads, Poisson arrivals; dots: simulated (min–max over "
            "seeds), dashed: theory.",
        )
    )
    sel = md1[(md1["seed"] == md1["seed"].min()) & md1["rho"].isin([0.1, 0.5, 0.8, 0.9])]
    figs.append(
        F.cdf_plot(
            res,
            "md1",
            sel,
            name="md1_cdf",
            title="M/D/1: response-time CDF",
            label=lambda r: f"ρ = {r['rho']:.1f}",
            theory=[
                ("M/D/1 theory", ts, [md1_response_cdf(t, rho) for t in ts])
                for rho in sorted(sel["rho"].unique())
                for ts in [np.geomspace(SERVICE_US, md1_response_quantile(0.9999, rho), 80)]
            ],
            caption="Simulated response-time distributions (solid) against Erlang's M/D/1 "
            "distribution (dashed); the minimum is the 100 µs service time.",
        )
    )
    waf = res.table("gc_waf")
    ops = np.linspace(
        float(waf["ftl.overprovisioning"].min()), float(waf["ftl.overprovisioning"].max()), 60
    )
    figs.append(
        F.sensitivity(
            waf,
            name="waf_vs_op",
            title="WAF vs over-provisioning by GC victim policy",
            x="ftl.overprovisioning",
            y="waf",
            series="ftl.gc_policy",
            logy=True,
            theory=[
                ("FIFO theory (LRW)", ops, [waf_fifo(o) for o in ops]),
                ("random theory", ops, [waf_random(o) for o in ops]),
            ],
            xlabel="over-provisioning (fraction of physical pages)",
            ylabel="write amplification",
            caption="Uniform random 4 KiB writes on a preconditioned plane; dashed: theory.",
        )
    )
    if "traces_gc" in res.tables:
        tg = res.table("traces_gc")
        figs.append(
            F.normalized_bars(
                tg,
                name="traces_gc_latency",
                title="Mean response time by GC policy",
                metric="latency_us.mean",
                series="ftl.gc_policy",
                baseline="greedy",
                ylabel="mean response time, normalised to greedy",
                caption="Sample MSR traces at 10× intensity on ssdsim-default, 90 % full.",
            )
        )
        # the trace on which the policies differ most
        spread = tg.groupby("workload")["latency_us.mean"].agg(lambda v: v.max() / v.min())
        show = str(spread.idxmax())
        sel = tg[tg["workload"] == show]
        figs.append(
            F.bandwidth_timeline(
                res,
                "traces_gc",
                sel,
                name="traces_gc_bandwidth",
                title=f"Bandwidth over time ({show})",
                label=lambda r: r["ftl.gc_policy"],
                caption="Per-second bandwidth under each GC policy, on the trace where "
                "the policies differ most.",
            )
        )
        figs.append(
            F.cdf_plot(
                res,
                "traces_gc",
                sel,
                name="traces_gc_cdf",
                title=f"Response-time CDF ({show})",
                label=lambda r: r["ftl.gc_policy"],
            )
        )
    return figs


REPRODUCTION = Reproduction(
    name="foundation",
    title="Simulator validation: M/D/1 queueing and GC write amplification",
    citation="Queueing theory (Pollaczek–Khinchine); P. Desnoyers, 'Analytic modeling of SSD "
    "write performance', SYSTOR 2012; X.-Y. Hu et al., 'Write amplification analysis "
    "in flash-based SSDs', SYSTOR 2009",
    claims=CLAIMS,
    experiments=experiments,
    measure=measure,
    figures=make_figures,
    device_schedulers=("fifo",),
    host_schedulers=("noop",),
    notes=__doc__ or "",
    runtime="full run: 1 min 28 s wall on 2 shared cores, 51 s CPU, 195 MB RSS (quick: about 5 s)",
)
