"""``flashsched bench --startup``: how long ``flashsched run`` takes before it
simulates, on a small trace (BENCHMARKS.md, "Start-up").

Each measurement is a fresh interpreter, repeated, median reported:

* ``python``: ``python -c pass``, the interpreter alone (site packages
  included: a ``.pth`` file elsewhere in the environment counts here);
* ``import``: ``import flashsched.cli`` (what every command loads);
* ``run``: ``flashsched run --trace FILE`` to the end, and its time to
  the first simulated event, bounded above by the process wall time minus
  the core's own simulation time (``wall_s`` in the summary): the bound
  also counts printing the summary and interpreter exit;
* ``imports``: the modules ``run`` loaded that it should not need
  (pandas, numpy, pyarrow, matplotlib, tqdm): none is the target.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "tqdm")
RUN = (
    "import json, sys, time\n"
    "t0 = time.perf_counter()\n"
    "from flashsched import cli, api\n"
    "t1 = time.perf_counter()\n"
    "argv = sys.argv[1:]\n"
    "rc = cli.main(argv)\n"
    "heavy = [m for m in {heavy!r} if m in sys.modules]\n"
    "print('STARTUP', t1 - t0, json.dumps(heavy), file=sys.stderr)\n"
)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _wall(cmd: list[str], cpu: list[float] | None = None) -> tuple[float, Any]:
    """Wall time of ``cmd`` (and its CPU time appended to ``cpu``): CPU time
    is what a loaded machine inflates least."""
    c, t = _cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    if cpu is not None:
        cpu.append(_cpu() - c)
    return wall, proc


def measure(trace: str, fmt: str = "auto", repeat: int = 10) -> dict[str, Any]:
    """Median start-up times (seconds) over ``repeat`` fresh interpreters."""
    py = sys.executable
    base, imp, runs, firsts, import_s = [], [], [], [], []
    base_cpu: list[float] = []
    imp_cpu: list[float] = []
    run_cpu: list[float] = []
    heavy: list[str] = []
    argv = ["run", "--trace", trace, "--format", fmt, "--device", "ssdsim-default", "--json", "-"]
    for _ in range(repeat):
        base.append(_wall([py, "-c", "pass"], base_cpu)[0])
        imp.append(_wall([py, "-c", "import flashsched.cli"], imp_cpu)[0])
        w, proc = _wall([py, "-c", RUN.format(heavy=HEAVY), *argv], run_cpu)
        summary = json.loads(proc.stdout)
        line = next(x for x in proc.stderr.splitlines() if x.startswith("STARTUP"))
        import_s.append(float(line.split()[1]))
        heavy = json.loads(line.split(" ", 2)[2])
        runs.append(w)
        firsts.append(w - summary["wall_s"])
    med = statistics.median
    return {
        "trace": trace,
        "requests": summary["requests"],
        "repeat": repeat,
        "python_s": round(med(base), 4),
        "import_flashsched_cli_s": round(med(imp), 4),
        "import_in_process_s": round(med(import_s), 4),
        "run_total_s": round(med(runs), 4),
        "run_to_first_event_s": round(med(firsts), 4),
        "flashsched_share_s": round(med(firsts) - med(base), 4),
        "cpu_python_s": round(med(base_cpu), 4),
        "cpu_import_flashsched_cli_s": round(med(imp_cpu), 4),
        # the whole run: the 1000-request simulation itself is ~2 ms of it
        "cpu_run_total_s": round(med(run_cpu), 4),
        "cpu_flashsched_share_s": round(med(run_cpu) - med(base_cpu), 4),
        "heavy_modules_loaded": heavy,
    }


def main(trace: str | None, repeat: int) -> dict[str, Any]:
    if trace is None:
        from flashsched.reproduce import default_traces

        d = default_traces()
        cand = None if d is None else Path(d) / "msr" / "hm_0.first1000.csv"
        if cand is None or not cand.is_file():
            raise FileNotFoundError("bench --startup: give --startup-trace (sample traces absent)")
        trace = str(cand)
    r = measure(trace, repeat=repeat)
    print(
        f"start-up ({r['repeat']} runs, median) on {Path(r['trace']).name} "
        f"({r['requests']} requests):           wall        CPU\n"
        f"  python -c pass               {r['python_s'] * 1e3:7.1f} ms "
        f"{r['cpu_python_s'] * 1e3:7.1f} ms\n"
        f"  import flashsched.cli        {r['import_flashsched_cli_s'] * 1e3:7.1f} ms "
        f"{r['cpu_import_flashsched_cli_s'] * 1e3:7.1f} ms (in process: "
        f"{r['import_in_process_s'] * 1e3:.1f} ms wall)\n"
        f"  flashsched run: first event  {r['run_to_first_event_s'] * 1e3:7.1f} ms\n"
        f"  flashsched run: total        {r['run_total_s'] * 1e3:7.1f} ms "
        f"{r['cpu_run_total_s'] * 1e3:7.1f} ms\n"
        f"    beyond python -c pass      {r['flashsched_share_s'] * 1e3:7.1f} ms "
        f"{r['cpu_flashsched_share_s'] * 1e3:7.1f} ms\n"
        f"  heavy modules loaded by run: {r['heavy_modules_loaded'] or 'none'}"
    )
    return r
