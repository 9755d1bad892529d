"""Exception hierarchy: every error raised by the simulator core derives from
:class:`FlashschedError`. Missing files raise the built-in FileNotFoundError."""

from flashsched._core import ConfigError, FlashschedError, SimulationError, TraceError

__all__ = ["FlashschedError", "ConfigError", "TraceError", "SimulationError"]
