"""Regenerate the peers' numbers: run every (or the chosen) case on MQSim
or SSDsim built outside the project, and write the results with their
provenance into the data file.

    python -m flashsched.validate.regenerate --peers /work/peers --peer mqsim \\
        [--only NAME ...] [--missing] [--traces DIR] [--work DIR] [--out FILE]

``--peers DIR`` holds ``mqsim/`` (the built ``MQSim`` and its shipped
``ssdconfig.xml``) and ``ssdsim/`` (the built ``ssd`` and its shipped
``page.parameters``); docs/validation.md says how to build them. Inputs
and outputs of each run are kept under ``--work`` (default ``DIR/runs``).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flashsched.reproduce import default_traces
from flashsched.validate import cases, peer_mqsim, peer_ssdsim
from flashsched.validate.traces import materialize


def regenerate(
    peer: str,
    peers: Path,
    traces: Path | None,
    work: Path,
    only: Sequence[str] = (),
    missing: bool = False,
    data_file: Path | None = None,
    out: Path | None = None,
) -> list[str]:
    """Run the selected cases on ``peer`` and store each result as it comes
    (a case the peer fails on keeps its old result and is reported);
    returns the names of the cases that failed."""
    src = data_file or cases.DATA_DIR / f"{peer}.json"
    obj = json.loads(src.read_text())
    data = cases.parse(obj, str(src))
    unknown = set(only) - {c.name for c in data.cases}
    if unknown:
        raise KeyError(f"no such {peer} cases: {sorted(unknown)}")
    failed = []
    for i, case in enumerate(data.cases):
        if (only and case.name not in only) or (missing and case.result is not None):
            continue
        raw_case: dict[str, Any] = obj["cases"][i]
        cut = None
        sha = ""
        if case.trace_cut is not None:
            if traces is None:
                raise FileNotFoundError("trace cases need --traces (or FLASHSCHED_TRACES)")
            cut = materialize(case.trace_cut, traces, work / "cuts")
            sha = hashlib.sha256(cut.read_bytes()).hexdigest()
            raw_case["workload"]["trace_cut"]["sha256"] = sha
        wd = work / peer / case.name
        try:
            if peer == "mqsim":
                res = peer_mqsim.run(case, peers / "mqsim", cut, wd)
            elif cut is None:
                raise ValueError(f"SSDsim case {case.name} needs a trace cut")
            else:
                res = peer_ssdsim.run(case, peers / "ssdsim", cut, wd)
        except (RuntimeError, ValueError) as e:
            print(f"{peer}/{case.name}: FAILED: {e}", flush=True)
            failed.append(case.name)
            continue
        res.pop("cost", None)  # timings for `bench --versus`, not stored data
        res["metrics"] = {k: _round(v) for k, v in res["metrics"].items()}
        res["date"] = datetime.date.today().isoformat()
        if sha:
            res["sha256"] = sha
        raw_case["peer_result"] = res
        print(f"{peer}/{case.name}: {res['wall_s']} s", flush=True)
        cases.parse(obj, str(src))  # what is written must load
        (out or src).write_text(json.dumps(obj, indent=1) + "\n")
    return failed


def _round(v: float) -> float:
    return float(f"{v:.6g}")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m flashsched.validate.regenerate", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--peers", type=Path, required=True, help="directory with mqsim/ and ssdsim/")
    p.add_argument("--peer", choices=cases.PEERS, required=True)
    p.add_argument("--only", nargs="*", default=[], metavar="NAME", help="cases to run")
    p.add_argument("--missing", action="store_true", help="only cases without a peer result")
    p.add_argument("--traces", type=Path, default=None, help="shared traces directory")
    p.add_argument("--work", type=Path, default=None, help="run directory (default PEERS/runs)")
    p.add_argument("--data", type=Path, default=None, help="data file to read")
    p.add_argument("--out", type=Path, default=None, help="data file to write (default: --data)")
    a = p.parse_args(argv)
    failed = regenerate(
        a.peer,
        a.peers,
        a.traces or default_traces(),
        a.work or a.peers / "runs",
        a.only,
        a.missing,
        a.data,
        a.out,
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
