"""flashsched: a fast, faithful trace-driven simulator of flash SSDs for
evaluating I/O schedulers.

>>> import flashsched
>>> res = flashsched.run(synthetic="read=0.7,bs=4k,iops=5000,n=1000", device="ssdsim-default")
>>> res.summary["requests"]
1000
"""

from flashsched._core import (
    __version__,
    detect_format,
    device_schedulers,
    formats,
    host_schedulers,
    load_config,
    memory_estimate,
    presets,
    scan_trace,
)
from flashsched.api import run, simulation
from flashsched.array import ArrayResult, run_array
from flashsched.commands.compare import compare
from flashsched.exceptions import (
    ConfigError,
    FlashschedError,
    MemoryLimitError,
    SimulationError,
    TraceError,
)
from flashsched.report import report
from flashsched.reproduce import reproduce
from flashsched.results import RunResult
from flashsched.sweep import sweep

DEMO_WORKLOAD = "read=0.7,bs=4k-16k,iops=20000,n=200000"
"""The built-in workload of ``flashsched demo``: 200k random requests, 70 % reads."""

DEMO_OVERRIDES = ["ftl.precondition_fill=0.9"]
"""``flashsched demo`` preconditions the default device to 90 % full so GC runs."""

__all__ = [
    "__version__",
    "run",
    "run_array",
    "ArrayResult",
    "simulation",
    "sweep",
    "reproduce",
    "report",
    "compare",
    "RunResult",
    "presets",
    "formats",
    "host_schedulers",
    "device_schedulers",
    "load_config",
    "memory_estimate",
    "detect_format",
    "scan_trace",
    "FlashschedError",
    "ConfigError",
    "TraceError",
    "SimulationError",
    "MemoryLimitError",
    "DEMO_WORKLOAD",
    "DEMO_OVERRIDES",
]
