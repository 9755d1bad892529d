"""Trace cuts: the small inputs the peer cases were run on, regenerated from
the shared sample traces instead of stored in the project.

A cut takes the first ``first`` records of a shared trace, optionally keeps
only reads or writes, compresses arrival times (``intensity``), folds byte
offsets onto ``fold_bytes`` and writes the result in the ASCII line format
both MQSim and SSDsim read (``time_ns dev start_sector size_sectors op``,
op 1 = read). flashsched replays the same file (format ``ascii-ns``), so the
peers and flashsched see identical requests. The file's SHA-256 is recorded
with the case: a regenerated cut that differs is an error, not a silent
change of workload.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from flashsched.exceptions import ConfigError

SECTOR = 512

# (time_ns, offset_bytes, size_bytes, is_read)
Record = tuple[int, int, int, bool]

SOURCE_FORMATS = ("ascii-ns", "heimdall", "msr")
OPS = ("all", "read", "write")


@dataclass(frozen=True)
class TraceCut:
    """How to regenerate one peer input from a shared trace."""

    source: str  # path relative to the shared traces directory
    source_format: str  # ascii-ns | heimdall | msr
    first: int  # records taken from the start of the source (before filtering)
    ops: str = "all"  # all | read | write
    intensity: float = 1.0  # arrival times are divided by this
    fold_bytes: int = 0  # offsets are folded onto [0, fold_bytes); 0 = kept
    sha256: str = ""  # of the generated file ("" = not pinned yet)

    @staticmethod
    def from_dict(d: Mapping[str, Any], where: str) -> TraceCut:
        known = set(TraceCut.__dataclass_fields__)
        unknown = set(d) - known
        if unknown:
            raise ConfigError(f"{where}: unknown trace-cut keys {sorted(unknown)}")
        try:
            cut = TraceCut(**dict(d))
        except TypeError as e:
            raise ConfigError(f"{where}: {e}") from None
        cut.check(where)
        return cut

    def check(self, where: str) -> None:
        if self.source_format not in SOURCE_FORMATS:
            raise ConfigError(
                f"{where}.source_format: '{self.source_format}' is not one of {SOURCE_FORMATS}"
            )
        if self.ops not in OPS:
            raise ConfigError(f"{where}.ops: '{self.ops}' is not one of {OPS}")
        if self.first < 1:
            raise ConfigError(f"{where}.first: must be at least 1")
        if not self.intensity > 0:
            raise ConfigError(f"{where}.intensity: must be positive")
        if self.fold_bytes < 0 or self.fold_bytes % SECTOR:
            raise ConfigError(f"{where}.fold_bytes: must be a non-negative multiple of 512")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def file_name(self) -> str:
        """A name naming the cut's content (SSDsim reads names up to 29
        characters, so keep it short)."""
        key = repr(sorted((k, v) for k, v in asdict(self).items() if k != "sha256"))
        return "c" + hashlib.sha256(key.encode()).hexdigest()[:10] + ".trace"


def _read_source(path: Path, fmt: str) -> Iterator[Record]:
    """Records of a shared trace, in file order (times as given)."""
    with path.open() as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield _parse(line, fmt)
            except (ValueError, IndexError) as e:
                raise ConfigError(f"{path}:{lineno}: not a {fmt} record ({e})") from None


def _parse(line: str, fmt: str) -> Record:
    if fmt == "msr":
        # filetime(100 ns),host,disk,Read|Write,offset B,size B,response
        f = line.strip().split(",")
        return int(f[0]) * 100, int(f[4]), int(f[5]), f[3].strip().lower() == "read"
    f = line.split()
    if fmt == "heimdall":
        # ts(ms) dev offset(B) size(B) op(1 = read)
        return round(float(f[0]) * 1e6), int(f[2]), int(f[3]), int(f[4]) == 1
    # ascii-ns: time(ns) dev start_sector size(sectors) op(bit 0 = read)
    return round(float(f[0])), int(f[2]) * SECTOR, int(f[3]) * SECTOR, int(f[4]) & 1 == 1


def _fold(offset: int, size: int, span: int) -> tuple[int, int]:
    """flashsched's replay fold (``Replay::fold``): offset modulo the span,
    sector aligned, pulled back if the request would run past the end."""
    size = min(size, span)
    off = (offset % span) // SECTOR * SECTOR
    if off + size > span:
        off = (span - size) // SECTOR * SECTOR
    return off, size


def records(cut: TraceCut, traces: Path) -> list[Record]:
    """The cut's records: times rebased to the first record and divided by
    the intensity, offsets and sizes in whole sectors."""
    src = traces / cut.source
    if not src.is_file():
        raise FileNotFoundError(f"shared trace {src} not found (set FLASHSCHED_TRACES)")
    out: list[Record] = []
    t0: int | None = None
    for i, (t, off, size, rd) in enumerate(_read_source(src, cut.source_format)):
        if i >= cut.first:
            break
        t0 = t if t0 is None else t0
        if (cut.ops == "read" and not rd) or (cut.ops == "write" and rd):
            continue
        size = max(SECTOR, -(-size // SECTOR) * SECTOR)
        off = off // SECTOR * SECTOR
        if cut.fold_bytes:
            off, size = _fold(off, size, cut.fold_bytes)
        out.append((round((t - t0) / cut.intensity), off, size, rd))
    # Traces may step back in time; both peers expect arrival order.
    last = 0
    for i, (t, off, size, rd) in enumerate(out):
        last = max(last, t)
        out[i] = (last, off, size, rd)
    return out


def render(recs: list[Record]) -> str:
    """The ASCII lines MQSim and SSDsim read, newline-terminated."""
    return "".join(
        f"{t} 0 {off // SECTOR} {size // SECTOR} {1 if rd else 0}\n" for t, off, size, rd in recs
    )


def materialize(cut: TraceCut, traces: Path, dest: Path) -> Path:
    """Write the cut into ``dest`` (reused if already there with the right
    hash) and check it against the recorded SHA-256."""
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / cut.file_name()
    if path.is_file() and cut.sha256 and _sha(path.read_bytes()) == cut.sha256:
        return path
    text = render(records(cut, traces)).encode()
    digest = _sha(text)
    if cut.sha256 and digest != cut.sha256:
        raise ConfigError(
            f"trace cut of {cut.source} (first {cut.first}) regenerated with SHA-256 "
            f"{digest[:12]}..., the peer ran on {cut.sha256[:12]}...: the shared trace "
            "or the conversion changed"
        )
    path.write_bytes(text)
    return path


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
