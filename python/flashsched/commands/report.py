"""``flashsched report RESULTS_DIR``: write a self-contained HTML report."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write an HTML report for a sweep/reproduction directory")
    p.add_argument("results", help="a sweep or reproduction results directory")
    p.add_argument("--out", help="HTML file (default: RESULTS/report.html)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from flashsched.report import report

    print(report(args.results, args.out))
    return 0
