"""Exception hierarchy: every error raised by the simulator core derives from
:class:`FlashschedError`. Missing files raise the built-in FileNotFoundError."""

from flashsched._core import (
    ConfigError,
    FlashschedError,
    ReplayError,
    SimulationError,
    TraceError,
    UnsafeTargetError,
    VerifyError,
)

__all__ = [
    "FlashschedError",
    "ConfigError",
    "TraceError",
    "SimulationError",
    "ReplayError",
    "UnsafeTargetError",
    "VerifyError",
]
