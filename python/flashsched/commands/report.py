"""``flashsched report RESULTS_DIR``: write a self-contained HTML report."""

from __future__ import annotations

import argparse

from flashsched.commands import args as A


def register(sub: argparse._SubParsersAction) -> None:
    p = A.add_command(
        sub,
        "report",
        "write an HTML report for any results directory",
        "Write a self-contained HTML report (figures embedded) for the output "
        "directory of `run --out`, `compare`, `array-compare`, `sweep` or "
        "`reproduce`.",
    )
    p.add_argument("results", help="a results directory")
    p.add_argument("--out", type=A.out_file, help="HTML file (default: RESULTS/report.html)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched.report import report

    print(report(args.results, args.out))
    return 0
