"""flashsched: a fast, faithful trace-driven simulator of flash SSDs for
evaluating I/O schedulers.

>>> import flashsched
>>> res = flashsched.run(synthetic="read=0.7,bs=4k,iops=5000,n=1000", device="ssdsim-default")
>>> res.summary["requests"]
1000
"""

import sys
import types
from typing import TYPE_CHECKING, Any

from flashsched._core import (
    __version__,
    device_schedulers,
    formats,
    host_schedulers,
    presets,
)
from flashsched.api import (
    detect_format,
    load_config,
    memory_estimate,
    run,
    scan_trace,
    simulation,
)
from flashsched.exceptions import (
    ArgumentTypeError,
    ArgumentValueError,
    ConfigError,
    FlashschedError,
    MemoryLimitError,
    ReplayError,
    SimulationError,
    TraceError,
    UnsafeTargetError,
    VerifyError,
)

if TYPE_CHECKING:  # imported on first use (they load pandas / matplotlib)
    from flashsched.array import ArrayResult, run_array
    from flashsched.calibrate import calibrate
    from flashsched.comparison import compare
    from flashsched.realdev import probe, replay
    from flashsched.report import report
    from flashsched.reproduce import reproduce
    from flashsched.results import RunResult
    from flashsched.sweep import sweep

# name -> module: the heavy parts of the API load when first used, so
# `import flashsched` and `flashsched run` stay fast (BENCHMARKS.md "Start-up").
_LAZY = {
    "ArrayResult": "flashsched.array",
    "run_array": "flashsched.array",
    "compare": "flashsched.comparison",
    "report": "flashsched.report",
    "reproduce": "flashsched.reproduce",
    "RunResult": "flashsched.results",
    "sweep": "flashsched.sweep",
    "replay": "flashsched.realdev",
    "probe": "flashsched.realdev",
    "calibrate": "flashsched.calibrate",
}


def __getattr__(name: str) -> Any:
    mod = _LAZY.get(name)
    if mod is None:
        raise AttributeError(f"module 'flashsched' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(mod), name)
    globals()[name] = value
    return value


class _Package(types.ModuleType):
    """``flashsched.sweep``, ``.report`` and ``.reproduce`` are functions that
    share their names with submodules. Importing such a submodule makes the
    import system set the package attribute to the module; this keeps the
    function instead (the submodule stays in ``sys.modules``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _LAZY and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
    "ArgumentTypeError",
    "ArgumentValueError",
    "ReplayError",
    "UnsafeTargetError",
    "VerifyError",
    "replay",
    "probe",
    "calibrate",
    "DEMO_WORKLOAD",
    "DEMO_OVERRIDES",
]
