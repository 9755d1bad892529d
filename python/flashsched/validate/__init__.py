"""Cross-validation against MQSim and SSDsim: the peers' numbers are stored
as data (``data/<peer>.json``, with provenance); :func:`validate` runs the
same cases on flashsched and tabulates both. See docs/validation.md."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

from flashsched.exceptions import ConfigError
from flashsched.validate.cases import PEERS, Case, PeerData, Tolerance, load
from flashsched.validate.compare import FAIL, GAP, NA, OK, SKIPPED, Row, compare, run_case

__all__ = [
    "PEERS",
    "Case",
    "PeerData",
    "Tolerance",
    "Row",
    "load",
    "select",
    "validate",
    "OK",
    "GAP",
    "FAIL",
    "NA",
    "SKIPPED",
]


def select(
    peers: Sequence[str] = PEERS, names: Sequence[str] = (), quick: bool = False
) -> list[tuple[PeerData, Case]]:
    """The cases to run: of ``peers``, those named (``peer/case`` or
    ``case``), else all (only the quick subset with ``quick``). Cases with
    no peer result yet are left out."""
    out = []
    wanted = set(names)
    unmatched = set(names)
    for peer in peers:
        data = load(peer)
        for case in data.cases:
            keys = {case.name, f"{peer}/{case.name}"}
            if wanted and not keys & wanted:
                continue
            unmatched -= keys
            if (quick and not case.quick) or case.result is None:
                continue
            out.append((data, case))
    if unmatched:
        raise ConfigError(f"no validation cases named {sorted(unmatched)} in {list(peers)}")
    return out


def validate(
    peers: Sequence[str] = PEERS,
    names: Sequence[str] = (),
    quick: bool = False,
    traces: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """Run the selected cases on flashsched; one row per (case, metric) with
    the peer's value, ours, the difference, target, tolerance and status
    (``ok``, ``gap`` = outside the target for a stated reason, ``FAIL``,
    ``n/a`` = not modelled). Without ``traces`` (the shared sample traces),
    a trace case gives one ``skipped`` row saying so."""
    rows: list[Row] = []
    for data, case in select(peers, names, quick):
        if case.trace_cut is not None and (traces is None or not traces.is_dir()):
            rows.append(
                Row(
                    data.peer,
                    case.name,
                    "-",
                    float("nan"),
                    None,
                    None,
                    None,
                    None,
                    SKIPPED,
                    f"needs the shared traces (not found at {traces})",
                )
            )
            continue
        if progress:
            progress(f"{data.peer}/{case.name}")
        rows += compare(data, case, run_case(data, case, traces))
    return pd.DataFrame([r.as_dict() for r in rows], columns=list(Row.__dataclass_fields__))
