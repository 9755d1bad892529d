"""A run's summary dict: the core's JSON plus what check mode verified.

Every place that turns a native simulation into a summary (``run``, sweeps,
arrays) goes through :func:`from_sim`, so the ``check`` section is always
there: ``{"enabled": False}`` or the checker's counts. :func:`upgrade` renames
the keys of summaries stored by older versions to today's vocabulary
(docs/vocabulary.md), so cached sweep runs keep working.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

# Old summary key -> current key (older runs stored on disk).
RENAMED = {
    "host_sched": "host_sched",
    "device_sched": "device_sched",
}


class _Native(Protocol):
    def summary_json(self, stable: bool = False) -> str: ...
    def check_counts(self) -> dict[str, int] | None: ...


def check_section(counts: dict[str, int] | None) -> dict[str, Any]:
    """The summary's ``check`` section from the bindings' counts."""
    if counts is None:
        return {"enabled": False}
    return {"enabled": True, **counts}


def from_sim(sim: _Native) -> dict[str, Any]:
    """The summary of a finished native simulation (single SSD or array)."""
    s: dict[str, Any] = json.loads(sim.summary_json())
    s["check"] = check_section(sim.check_counts())
    return s


def upgrade(s: dict[str, Any]) -> dict[str, Any]:
    """``s`` with keys of older versions renamed (in place; returned)."""
    for old, new in RENAMED.items():
        if old in s and new not in s:
            s[new] = s.pop(old)
    return s
