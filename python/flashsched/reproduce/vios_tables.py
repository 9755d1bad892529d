"""Tables of the ``vios`` reproduction (``vios.py``): VIOS's reductions on
the SSDsim platform and on the earlier per-die device side by side, the
start-order band (``controller.{piq,vios}.order``), the wear stages with
and without GC, the block-choice variants, and the saturated workloads.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from flashsched.reproduce.base import Results
from flashsched.reproduce.common import Compare, compare, per_workload, saturated

# the paper's NOOP is SSDsim's FCFS (``ssdsim-fcfs``, reads first)
NOOP = "ssdsim-fcfs"
DS = "device_sched"
WEAR = "variation.wear_pe"
STAGES = (6000, 9000, 12000, 15000)
# Fig. 7: VIOS's write-latency reduction vs PIQ at each wear stage (%).
WEAR_PAPER = dict(zip(STAGES, (2.25, 5.25, 7.71, 9.63)))
# The experiment with PIQ and VIOS starting released work in release order
# (``controller.{piq,vios}.order = "in-order"``; the other experiments start
# a chip's released reads first, as SSDsim's controller and NOOP do).
IN_ORDER = "in_order"
IN_ORDER_COL = "SSDsim, PIQ/VIOS start in order"


def saturated_workloads(res: Results) -> dict[str, list[str]]:
    """Per experiment, the workloads every scheduler saturates: left out of
    the averages, reported apart."""
    out = {}
    for exp in res.tables:
        out[exp] = saturated(res.table(exp), DS)
    return out


def _red(
    t: pd.DataFrame, metric: str, ours: str, base: str, exclude: list[str] | None = None
) -> float | None:
    got = compare(t, Compare("x", metric, ours, base, DS, exclude=tuple(exclude or ())))
    return None if got is None else got[0]


def _red_median(
    t: pd.DataFrame, metric: str, ours: str, base: str, exclude: list[str] | None = None
) -> float | None:
    v = per_workload(t, Compare("x", metric, ours, base, DS, exclude=tuple(exclude or ())))
    return float(v.median()) if len(v) else None


def _in_order_main(res: Results) -> pd.DataFrame | None:
    """The in-order PIQ/VIOS runs at 12K with the ``main`` experiment's NOOP
    beside them (same device otherwise), or None without them."""
    if IN_ORDER not in res.tables or "main" not in res.tables:
        return None
    io = res.table(IN_ORDER)
    main = res.table("main")
    return pd.concat([io[io[WEAR] == 12000], main[main[DS] == NOOP]])


def platforms_table(res: Results) -> dict[str, pd.DataFrame]:
    """VIOS's reductions on the SSDsim platform (NOOP = in-order FCFS, and
    NOOP = per-die FIFO; PIQ/VIOS starting a chip's reads first, and in
    release order) and on the earlier per-die device, side by side (mean
    and median over workloads, saturated workloads left out; the
    ``saturated`` table names them); the wear stages with their GC erases;
    the block-choice variants."""
    sat = saturated_workloads(res)
    tables = dict(res.tables)
    if (io := _in_order_main(res)) is not None:
        tables["in_order_main"] = io
        sat["in_order_main"] = sorted(set(sat.get(IN_ORDER, [])) | set(sat.get("main", [])))
    rows = []
    cols = (
        ("SSDsim, NOOP = in-order FCFS", "main", NOOP),
        (IN_ORDER_COL, "in_order_main", NOOP),
        ("SSDsim, NOOP = per-die FIFO", "main", "fifo"),
        ("plain per-die device", "main_plain", "fifo"),
    )
    for q, metric, base, paper in (
        ("read vs NOOP", "read_latency_us.mean", "NOOP", 17.66),
        ("write vs NOOP", "write_latency_us.mean", "NOOP", 22.93),
        ("write vs PIQ", "write_latency_us.mean", "piq", 7.71),
        ("PIQ read vs NOOP", "read_latency_us.mean", "NOOP", None),
        ("PIQ write vs NOOP", "write_latency_us.mean", "NOOP", None),
    ):
        row: dict[str, Any] = {"quantity": q, "paper (%)": paper}
        for col, exp, noop in cols:
            if exp not in tables:
                continue
            ours = "piq" if q.startswith("PIQ") else "vios"
            b = noop if base == "NOOP" else base
            row[col] = _red(tables[exp], metric, ours, b, sat.get(exp))
            row[f"{col} (median)"] = _red_median(tables[exp], metric, ours, b, sat.get(exp))
        rows.append(row)
    out = {"platforms": pd.DataFrame(rows)}
    out["saturated"] = pd.DataFrame(
        [{"experiment": e, "saturated workloads": ", ".join(w)} for e, w in sat.items() if w]
    )
    if "wear" in res.tables:
        out["wear_stages"] = _wear_stages(res, sat)
    if "wear_gc" in res.tables:
        out["wear_gc"] = _wear_gc_table(res.table("wear_gc"))
    if "choice" in res.tables and "main" in res.tables:
        out["free_choice"] = _choice_table(res, sat)
    return out


def _wear_stages(res: Results, sat: dict[str, list[str]]) -> pd.DataFrame:
    """Per wear stage: VIOS vs PIQ (reads first; in order beside it when
    measured at that stage) and the GC erases of the runs."""
    w = res.table("wear")
    io = res.table(IN_ORDER) if IN_ORDER in res.tables else None
    metric = "write_latency_us.mean"
    rows = []
    for pe, g in w.groupby(WEAR):
        row: dict[str, Any] = {
            "wear_pe": pe,
            "write vs PIQ (%)": _red(g, metric, "vios", "piq", sat.get("wear")),
            "median (%)": _red_median(g, metric, "vios", "piq", sat.get("wear")),
            "paper (%)": WEAR_PAPER.get(int(pe)),
        }
        if io is not None and (gi := io[io[WEAR] == pe]).size:
            row["in order: write vs PIQ (%)"] = _red(gi, metric, "vios", "piq", sat.get(IN_ORDER))
            row["in order: median (%)"] = _red_median(gi, metric, "vios", "piq", sat.get(IN_ORDER))
        row["GC erases per run (PIQ)"] = g[g[DS] == "piq"]["gc.erases"].mean()
        row["GC erases per run (VIOS)"] = g[g[DS] == "vios"]["gc.erases"].mean()
        rows.append(row)
    return pd.DataFrame(rows)


def _choice_table(res: Results, sat: dict[str, list[str]]) -> pd.DataFrame:
    """VIOS's write-latency reductions for each non-conflicting block choice,
    channel-barrier setting and start order, against ``main``'s NOOP and the
    PIQ with the same start order (``main``'s, reads first; ``in_order``'s
    at 12K)."""
    c = res.table("choice")
    main = res.table("main")
    piq = {"reads-first": main[main[DS] == "piq"]}
    if (io := _in_order_main(res)) is not None:
        piq["in-order"] = io[io[DS] == "piq"]
    noop = main[main[DS] == NOOP]
    order = "controller.vios.order"
    if order not in c:  # an older run: every VIOS started reads first
        c = c.assign(**{order: "reads-first"})
    crows = []
    key = ["controller.vios.free_choice", "controller.vios.channel_barrier", order]
    metric = "write_latency_us.mean"
    for (choice, barrier, start), g in c.groupby(key):
        lab = "vios-" + str(choice)
        both = pd.concat([g.assign(**{DS: lab}), noop, piq.get(str(start), noop.iloc[:0])])
        crows.append(
            {
                "free_choice": choice,
                "channel_barrier": barrier,
                "order": start,
                "write vs NOOP (%)": _red(both, metric, lab, NOOP, sat.get("main")),
                "write vs PIQ (%)": _red(both, metric, lab, "piq", sat.get("main")),
                "read vs NOOP (%)": _red(both, "read_latency_us.mean", lab, NOOP, sat.get("main")),
            }
        )
    return pd.DataFrame(crows)


def _wear_gc_table(t: pd.DataFrame) -> pd.DataFrame:
    """Per wear stage on the collecting mix: GC erases and pages moved per
    scheduler, and VIOS's write-latency reduction vs PIQ (barrier on/off)."""
    rows = []
    for pe, g in t.groupby(WEAR):
        by = g.groupby("label")
        row: dict[str, Any] = {"wear_pe": pe, "paper vs PIQ (%)": WEAR_PAPER.get(int(pe))}
        for lab in ("vios", "vios-nobarrier"):
            row[f"{lab} vs PIQ (%)"] = _red(
                g.assign(**{DS: g["label"]}), "write_latency_us.mean", lab, "piq"
            )
        for lab, gg in by:
            row[f"GC erases ({lab})"] = gg["gc.erases"].mean()
            row[f"GC pages moved ({lab})"] = gg["gc.pages_moved"].mean()
            row[f"write latency ms ({lab})"] = gg["write_latency_us.mean"].mean() / 1000
        rows.append(row)
    return pd.DataFrame(rows)
