"""What an import could not carry over exactly, and the error a malformed
input raises. Every key of an imported file is either mapped, or reported
here: nothing is dropped silently."""

from __future__ import annotations

from dataclasses import dataclass, field

from flashsched.exceptions import ConfigError

# Kinds of note, from most to least consequential.
UNSUPPORTED = "unsupported"  # flashsched does not model it; the key has no effect
APPROXIMATED = "approximated"  # mapped, but flashsched's model differs
IGNORED = "ignored"  # no meaning here (output options, seeds, host-side settings)
DEFAULTED = "default"  # absent from the file: the other simulator's default is used


class ImporterError(ConfigError):
    """A malformed input file; the message names the file, line (or XML
    element) and key."""


@dataclass(frozen=True)
class Note:
    """One key that was not carried over exactly."""

    file: str
    line: int | None
    key: str
    kind: str
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.key}: {self.kind}: {self.message}"


@dataclass
class Notes:
    """The notes of one import, in file order."""

    file: str
    items: list[Note] = field(default_factory=list)
    # Source keys that need no flashsched key: they describe what flashsched
    # always does ("Memory_Type = FLASH"). Listed in the output, not warnings.
    matched: list[str] = field(default_factory=list)

    def add(self, kind: str, key: str, message: str, line: int | None = None) -> None:
        note = Note(self.file, line, key, kind, message)
        # Shared settings (fio's [global]) are read once per job: note them once.
        if note not in self.items:
            self.items.append(note)

    def match(self, key: str, value: str) -> None:
        if f"{key} = {value}" not in self.matched:
            self.matched.append(f"{key} = {value}")

    def error(self, key: str, message: str, line: int | None = None) -> ImporterError:
        where = self.file if line is None else f"{self.file}:{line}"
        return ImporterError(f"{where}: {key}: {message}")

    def lines(self) -> list[str]:
        """In file order (notes about the whole file first)."""
        ordered = sorted(self.items, key=lambda n: n.line or 0)
        return [str(n) for n in ordered]
