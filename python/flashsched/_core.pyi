"""Type stubs for the native module built from crates/flashsched-python."""

from os import PathLike
from typing import Any, final

__all__ = [
    "ArraySimulation",
    "Column",
    "ConfigError",
    "FlashschedError",
    "MemoryLimitError",
    "Replay",
    "ReplayError",
    "SSDSIM_PLAIN",
    "Simulation",
    "SimulationError",
    "TraceError",
    "UnsafeTargetError",
    "VerifyError",
    "detect_format",
    "device_schedulers",
    "formats",
    "host_schedulers",
    "load_config",
    "memory_estimate",
    "numeric_csv",
    "presets",
    "probe",
    "scan_trace",
    "uring_unavailable",
    "us_since",
    "__version__",
    "BUILD_PGO",
]

__version__: str
BUILD_PGO: str | None
SSDSIM_PLAIN: list[str]

class FlashschedError(Exception): ...
class ConfigError(FlashschedError): ...
class TraceError(FlashschedError): ...
class SimulationError(FlashschedError): ...
class MemoryLimitError(FlashschedError): ...

@final
class Simulation:
    def __new__(
        cls,
        device: str = "default",
        overrides: list[str] = ...,
        trace: str | PathLike[str] | None = None,
        format: str = "auto",
        intensity: float = 1.0,
        limit: int | None = None,
        synthetic: str | None = None,
        seed: int = 42,
        keep_records: bool = True,
        check: bool = False,
        skip_bad: bool = False,
        time_order: str = "auto",
        max_memory: str | None = None,
        records_held: int | None = None,
    ) -> Simulation: ...
    def advance(self, max_steps: int) -> bool: ...
    def advance_until(self, completed: int, max_steps: int = ...) -> bool: ...
    def run(self) -> None: ...
    def progress(self) -> tuple[int, int | None, int]: ...
    def is_finished(self) -> bool: ...
    def summary_json(self, stable: bool = False) -> str: ...
    def records(self) -> dict[str, Column]: ...
    def take_records(self) -> dict[str, Column]: ...
    def completion_floor(self) -> int: ...
    def timeseries(self) -> dict[str, Column]: ...
    def erase_counts(self) -> Column: ...
    def check_counts(self) -> dict[str, int] | None: ...
    def config_toml(self) -> str: ...
    def check_invariants(self) -> None: ...

@final
class Column:
    """A per-request column shared with the core; ``numpy.asarray`` views it
    (read-only, no copy)."""

    @property
    def __array_interface__(self) -> dict[str, Any]: ...
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> int | float: ...

def us_since(t: Column, start: Column) -> Column:
    """``(t - start) / 1000`` as float64 microseconds (two uint64 ns columns)."""

def numeric_csv(names: list[str], columns: list[tuple[str, bytes]]) -> str:
    """A table as CSV text, as pandas' ``to_csv(index=False)`` writes it;
    each column ``("<i8" | "<f8", little-endian bytes)``."""

@final
class ArraySimulation:
    def __new__(
        cls,
        layout: str = "raid0",
        ssds: int = 4,
        device: str = "default",
        overrides: list[str] = ...,
        link: str | None = None,
        queue_depth: int = 256,
        bin_ms: float = 1000.0,
        phases: list[str] | None = None,
        writers: tuple[int, int, int, int] | None = None,
        seed: int = 42,
        keep_records: bool = False,
        check: bool = False,
        max_memory: str | None = None,
        ssd_speeds: list[float] = ...,
    ) -> ArraySimulation: ...
    def advance(self, max_steps: int) -> bool: ...
    def run(self) -> None: ...
    def progress(self) -> tuple[int, int | None, int]: ...
    def summary_json(self, stable: bool = False) -> str: ...
    def series(self) -> dict[str, Any]: ...
    def check_counts(self) -> dict[str, int] | None: ...
    def check_invariants(self) -> None: ...

def presets() -> list[tuple[str, str]]: ...
def formats() -> list[tuple[str, str]]: ...
def host_schedulers() -> list[str]: ...
def device_schedulers() -> list[str]: ...
def load_config(device: str, overrides: list[str] = ...) -> str: ...
def memory_estimate(
    device: str,
    overrides: list[str] = ...,
    check: bool = False,
    requests: int | None = None,
    ssds: int = 1,
) -> dict[str, Any]: ...
def detect_format(path: str | PathLike[str]) -> str: ...
def scan_trace(
    path: str | PathLike[str],
    format: str = "auto",
    skip_bad: bool = False,
    time_order: str = "auto",
) -> dict[str, Any]: ...

# Real-device replay (crates/flashsched-python/src/replay.rs)
class ReplayError(FlashschedError): ...
class UnsafeTargetError(ReplayError): ...
class VerifyError(ReplayError): ...

@final
class Replay:
    def __new__(
        cls,
        target: str,
        offset: int = 0,
        size: int = 0,
        allow_write: bool = False,
        align: int = 0,
        device: str = "default",
        overrides: list[str] = ...,
        trace: str | None = None,
        format: str = "auto",
        intensity: float = 1.0,
        limit: int | None = None,
        synthetic: str | None = None,
        seed: int = 42,
        keep_records: bool = True,
        verify: bool = False,
        prefill: bool | None = None,
        backend: str = "auto",
        skip_bad: bool = False,
        time_order: str = "auto",
    ) -> Replay: ...
    def advance(self, seconds: float) -> bool: ...
    def run(self) -> None: ...
    def interrupt(self) -> None: ...
    def progress(self) -> tuple[int, int | None, int]: ...
    def is_finished(self) -> bool: ...
    def summary_json(self, stable: bool = False) -> str: ...
    def check_counts(self) -> None: ...
    def records(self) -> dict[str, Column]: ...
    def timeseries(self) -> dict[str, Column]: ...
    def erase_counts(self) -> Column: ...
    def config_toml(self) -> str: ...
    def backend_name(self) -> str: ...

def probe(
    target: str,
    sizes: list[int],
    offset: int = 0,
    size: int = 0,
    allow_write: bool = False,
    align: int = 0,
    per_size: int = 200,
    writes: bool = True,
    prefill: bool | None = None,
    backend: str = "auto",
    seed: int = 42,
) -> str: ...
def uring_unavailable() -> str | None: ...
