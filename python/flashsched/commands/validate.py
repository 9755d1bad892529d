"""``flashsched validate``: run the cross-validation cases on flashsched and
put the stored MQSim / SSDsim numbers next to ours (docs/validation.md).

Prints one table per peer (case, metric, peer, flashsched, diff %, target,
tolerance, status); ``--csv`` / ``--json`` write the rows; ``--check``
exits with status 1 when a metric is outside its case's stated tolerance.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded when the command runs (keeps `flashsched run` light)
    import pandas as pd

# flashsched.validate.PEERS (importing it loads pandas; run() checks they agree)
PEER_NAMES = ("mqsim", "ssdsim")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="compare flashsched with stored MQSim/SSDsim results")
    p.add_argument(
        "--peer",
        choices=[*PEER_NAMES, "all"],
        default="all",
        help="the peer simulator whose stored numbers to compare with",
    )
    p.add_argument(
        "--case",
        action="append",
        default=[],
        metavar="NAME",
        help="only this case (NAME or PEER/NAME; repeatable)",
    )
    p.add_argument("--quick", action="store_true", help="only the fast subset")
    p.add_argument(
        "--traces", help="sample traces directory (default: $FLASHSCHED_TRACES or ../shared/traces)"
    )
    p.add_argument("--csv", metavar="OUT", help="write the rows as CSV")
    p.add_argument("--json", metavar="OUT", help="write the rows as JSON")
    p.add_argument(
        "--check", action="store_true", help="exit 1 if a metric is outside its stated tolerance"
    )
    p.set_defaults(func=run)


def _fmt(v: object) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    assert isinstance(v, (int, float))
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.1f}" if v != int(v) else f"{v:.0f}"


def render(df: pd.DataFrame) -> str:
    """The rows as text tables, one per peer."""
    import pandas as pd

    from flashsched.validate import FAIL, GAP, NA, OK, SKIPPED

    out = []
    for peer, g in df.groupby("peer", sort=False):
        out.append(f"{peer}:")
        shown = pd.DataFrame(
            {
                "case": g["case"],
                "metric": g["metric"],
                "peer": g["peer_value"].map(_fmt),
                "flashsched": g["ours"].map(_fmt),
                "diff %": g["diff_pct"].map(lambda d: "-" if pd.isna(d) else f"{d:+.1f}"),
                "target %": g["target_pct"].map(_fmt),
                "tol %": g["tolerance_pct"].map(_fmt),
                "status": g["status"],
            }
        )
        out.append(shown.to_string(index=False))
        out.append("")
    counts = df["status"].value_counts()
    parts = [f"{counts.get(s, 0)} {s}" for s in (OK, GAP, FAIL, NA, SKIPPED)]
    out.append("metrics: " + ", ".join(parts))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    from flashsched.reproduce import default_traces
    from flashsched.validate import FAIL, GAP, PEERS, SKIPPED, validate

    assert tuple(PEERS) == PEER_NAMES, "PEER_NAMES must list flashsched.validate.PEERS"
    peers = list(PEERS) if args.peer == "all" else [args.peer]
    traces = Path(args.traces) if args.traces else default_traces()
    df = validate(
        peers,
        args.case,
        args.quick,
        traces,
        progress=lambda s: print(f"  {s}", file=sys.stderr, flush=True),
    )
    print(render(df))
    for _, r in df[df["status"].isin([GAP, FAIL, SKIPPED])].iterrows():
        print(f"  {r['status']}: {r['peer']}/{r['case']} {r['metric']}: {r['reason']}")
    if args.csv:
        df.to_csv(args.csv, index=False)
    if args.json:
        Path(args.json).write_text(json.dumps(df.to_dict(orient="records"), indent=1))
    if args.check and (df["status"] == FAIL).any():
        print(
            f"flashsched validate: {(df['status'] == FAIL).sum()} metrics outside tolerance",
            file=sys.stderr,
        )
        return 1
    return 0
