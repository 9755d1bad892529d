"""Run a validation case on flashsched and put its numbers next to the
peer's: one row per metric with the difference, the agreement target and
the case's tolerance."""

from __future__ import annotations

import math
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from flashsched import api
from flashsched.validate.cases import Case, PeerData
from flashsched.validate.metrics import NOT_MODELLED, ours
from flashsched.validate.traces import materialize

# Row status: within the target; outside it but within the tolerance the
# case states (a known, explained difference); outside the tolerance; not
# modelled by flashsched (shown, not compared); not run (its input is
# missing).
OK, GAP, FAIL, NA, SKIPPED = "ok", "gap", "FAIL", "n/a", "skipped"


@dataclass(frozen=True)
class Row:
    peer: str
    case: str
    metric: str
    peer_value: float
    ours: float | None
    diff_pct: float | None
    target_pct: float | None
    tolerance_pct: float | None
    status: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def overrides(data: PeerData, case: Case) -> list[str]:
    """The flashsched config of a case: the peer's mapping, then the case's."""
    return [*data.overrides, *case.overrides]


def run_case(
    data: PeerData, case: Case, traces: Path | None, check: bool = False
) -> dict[str, float]:
    """flashsched's metrics for ``case``. A trace case regenerates its cut
    from the shared traces (its SHA-256 must match what the peer ran on)."""
    kw: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="flashsched-validate-") as tmp:
        if case.trace_cut is not None:
            if traces is None:
                raise FileNotFoundError(
                    f"case {data.peer}/{case.name} needs the shared traces "
                    "(set FLASHSCHED_TRACES or pass --traces)"
                )
            kw["trace"] = str(materialize(case.trace_cut, traces, Path(tmp)))
            kw["format"] = "ascii-ns"
        else:
            kw["synthetic"] = case.synthetic
        res = api.run(
            device=data.device,
            overrides=overrides(data, case),
            keep_records=False,
            check=check,
            **kw,
        )
    return ours(res.summary)


def compare(data: PeerData, case: Case, measured: dict[str, float]) -> list[Row]:
    """One row per metric the peer reports, in the peer's order."""
    if case.result is None:
        raise ValueError(f"case {data.peer}/{case.name} has no peer result")
    rows = []
    for metric, peer_value in case.result.metrics.items():
        why_not = NOT_MODELLED.get(metric) or data.not_compared.get(metric)
        if why_not:
            rows.append(
                Row(data.peer, case.name, metric, peer_value, None, None, None, None, NA, why_not)
            )
            continue
        value = measured[metric]
        target, tol = case.tolerance(data, metric)
        diff = _diff_pct(peer_value, value)
        if target.allows(peer_value, value):
            status, reason = OK, target.reason
        elif tol.allows(peer_value, value):
            status, reason = GAP, tol.reason
        else:
            status, reason = FAIL, tol.reason
        rows.append(
            Row(
                data.peer,
                case.name,
                metric,
                peer_value,
                value,
                diff,
                target.pct,
                tol.pct,
                status,
                reason,
            )
        )
    return rows


def _diff_pct(peer: float, value: float) -> float:
    if peer == 0:
        return 0.0 if value == 0 else math.copysign(math.inf, value)
    return (value - peer) / abs(peer) * 100.0
