"""Typed reads of another simulator's key = value settings: each read names
the file, line and key when a value is malformed, falls back to that
simulator's default (noted) when the key is absent, and marks the key as
used, so whatever no read touched can be reported at the end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Union

from flashsched.importers.notes import DEFAULTED, UNSUPPORTED, Notes

Raw = Union[str, int, float, bool]


class Fields:
    """Values by key: (text, line); ``defaults`` are the source simulator's
    own defaults for keys a file may leave out."""

    def __init__(
        self,
        notes: Notes,
        values: Mapping[str, tuple[str, int]],
        defaults: Mapping[str, Raw],
    ) -> None:
        self.notes = notes
        self.values = dict(values)
        self.defaults = defaults
        self.used: set[str] = set()

    def line(self, key: str) -> int | None:
        got = self.values.get(key)
        return got[1] if got else None

    def has(self, key: str) -> bool:
        return key in self.values

    def text(self, key: str) -> str:
        self.used.add(key)
        if key in self.values:
            return self.values[key][0].strip()
        if key not in self.defaults:
            raise self.notes.error(key, "missing (and it has no default)")
        d = self.defaults[key]
        shown = ("true" if d else "false") if isinstance(d, bool) else str(d)
        self.notes.add(DEFAULTED, key, f"not given; the default {shown} is used")
        return shown

    def _bad(self, key: str, what: str) -> Exception:
        return self.notes.error(
            key, f"`{self.values[key][0].strip()}` is not {what}", self.line(key)
        )

    def integer(self, key: str, lo: int = 0) -> int:
        t = self.text(key)
        try:
            v = int(t)
        except ValueError:
            # MQSim writes some integers as decimals ("1.00000").
            try:
                f = float(t)
            except ValueError:
                raise self._bad(key, "an integer") from None
            if f != int(f):
                raise self._bad(key, "an integer") from None
            v = int(f)
        if v < lo:
            raise self.notes.error(key, f"{v} is below {lo}", self.line(key))
        return v

    def number(self, key: str, lo: float = 0.0, hi: float | None = None) -> float:
        t = self.text(key)
        try:
            v = float(t)
        except ValueError:
            raise self._bad(key, "a number") from None
        if not (v >= lo and (hi is None or v <= hi)):
            rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
            raise self.notes.error(key, f"{v} is outside {rng}", self.line(key))
        return v

    def flag(self, key: str) -> bool:
        t = self.text(key).lower()
        if t in ("true", "1"):
            return True
        if t in ("false", "0"):
            return False
        raise self._bad(key, "true or false")

    def choice(self, key: str, options: Sequence[str]) -> str:
        t = self.text(key)
        if t not in options:
            raise self.notes.error(key, f"`{t}` is not one of {', '.join(options)}", self.line(key))
        return t

    def note(self, kind: str, key: str, message: str) -> None:
        """A note about a key the file gives (nothing if it does not)."""
        self.used.add(key)
        if key in self.values:
            self.notes.add(kind, key, message, self.line(key))

    def match(self, key: str, value: str) -> None:
        """A key whose value is what flashsched always does (no key needed)."""
        self.used.add(key)
        if key in self.values:
            self.notes.match(key, value)

    def note_group(self, kind: str, keys: Sequence[str], message: str) -> None:
        """One note for several keys of the same kind (e.g. signal timings)."""
        given = [k for k in keys if k in self.values]
        self.used.update(keys)
        if given:
            self.notes.add(kind, ", ".join(given), message, self.line(given[0]))

    def report_unused(self, why: str) -> None:
        """Every key no read touched: unknown to the importer."""
        for k, (_, line) in self.values.items():
            if k not in self.used:
                self.notes.add(UNSUPPORTED, k, why, line)
