"""Exception hierarchy: every error raised by flashsched derives from
:class:`FlashschedError`. Missing files raise the built-in FileNotFoundError.

An API argument of the wrong type raises :class:`ArgumentTypeError` (also a
``TypeError``), one outside its domain :class:`ArgumentValueError` (also a
``ValueError``); both are :class:`ConfigError` s, so ``except
flashsched.FlashschedError`` catches every bad input.

:class:`MemoryLimitError`: the run would need more memory than its limit
(the memory available, or ``max_memory``); raised before anything is built.
"""

from flashsched._core import (
    ConfigError,
    FlashschedError,
    MemoryLimitError,
    ReplayError,
    SimulationError,
    TraceError,
    UnsafeTargetError,
    VerifyError,
)


class ArgumentTypeError(ConfigError, TypeError):
    """An API argument of the wrong type (the message names the argument)."""


class ArgumentValueError(ConfigError, ValueError):
    """An API argument outside its domain, or an unknown name (the message
    names the argument and what is allowed)."""


__all__ = [
    "FlashschedError",
    "ConfigError",
    "TraceError",
    "SimulationError",
    "MemoryLimitError",
    "ReplayError",
    "UnsafeTargetError",
    "VerifyError",
    "ArgumentTypeError",
    "ArgumentValueError",
]
