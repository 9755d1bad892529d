"""An imported device: flashsched config keys with the source key each came
from, checked by the core's own config loader, written as a device TOML or
as ``section.key=value`` overrides."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Union

from flashsched import _core
from flashsched.importers.notes import Notes
from flashsched.importers.tomlout import comment_block, value

Value = Union[str, int, float, bool]

# Section order in the written file (the core's own order).
SECTIONS = ("geometry", "timing", "ftl", "host", "controller", "interface", "cache", "mapping")


@dataclass
class DeviceImport:
    """A device converted from another simulator's configuration."""

    source: str  # "MQSim ssdconfig.xml", "SSDsim page.parameters"
    notes: Notes
    description: str = ""
    # "section.key" -> (value, where it came from)
    keys: dict[str, tuple[Value, str]] = field(default_factory=dict)
    # "section.key" -> line of the source key it came from (for errors)
    lines: dict[str, int] = field(default_factory=dict)

    def set(self, key: str, v: Value, origin: str) -> None:
        self.keys[key] = (v, origin)

    @property
    def warnings(self) -> list[str]:
        """Every key not carried over exactly, one line each."""
        return self.notes.lines()

    def overrides(self) -> list[str]:
        """The device as overrides on flashsched's `default` preset."""
        return [f"{k}={value(v)}" for k, (v, _) in self.keys.items()]

    def locate(self, *sources: Mapping[str, tuple[str, int]]) -> None:
        """Note the line of the first source key each origin names."""
        for k, (_, origin) in self.keys.items():
            hits = [
                (m.start(), line)
                for src in sources
                for name, (_, line) in src.items()
                if (m := re.search(rf"(?<![\w\[]){re.escape(name)}(?![\w\]])", origin))
            ]
            if hits:
                self.lines[k] = min(hits)[1]

    def validate(self) -> None:
        """The core's checks (ranges, choices, cross-key rules); an error
        names the flashsched key, the source key and its line."""
        try:
            _core.load_config("default", self.overrides())
        except _core.ConfigError as e:
            m = re.search(r"config key [`']([\w.\-]+)[`']", str(e))
            key = m.group(1) if m else ""
            if key in self.keys:
                origin = self.keys[key][1]
                raise self.notes.error(origin, str(e), self.lines.get(key)) from None
            raise self.notes.error("converted device", str(e)) from None

    def to_toml(self) -> str:
        out = [
            f"# flashsched device imported from {self.source} by `flashsched import`.",
            "# Keys not given here take flashsched's defaults (`flashsched config FILE`",
            "# prints the whole resolved device). Each value names the key it came from.",
            *comment_block("Not carried over exactly", self.warnings),
            *comment_block("As flashsched always models them (no key needed)", self.notes.matched),
            f"description = {value(self.description)}",
        ]
        for section in SECTIONS:
            rows = [
                (k.split(".", 1)[1], v, origin)
                for k, (v, origin) in self.keys.items()
                if k.split(".", 1)[0] == section
            ]
            if not rows:
                continue
            out.append(f"[{section}]")
            for name, v, origin in rows:
                line = f"{name} = {value(v)}"
                out.append(f"{line:<32} # {origin}" if origin else line)
        return "\n".join(out) + "\n"
