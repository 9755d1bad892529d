"""Exception hierarchy: every error raised by the simulator core derives from
:class:`FlashschedError`. Missing files raise the built-in FileNotFoundError.
:class:`MemoryLimitError`: the run would need more memory than its limit
(the memory available, or ``max_memory``); raised before anything is built."""

from flashsched._core import (
    ConfigError,
    FlashschedError,
    MemoryLimitError,
    SimulationError,
    TraceError,
)

__all__ = ["FlashschedError", "ConfigError", "TraceError", "SimulationError", "MemoryLimitError"]
