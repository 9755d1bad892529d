"""CLI sub-commands, one module each (``register(sub)`` adds its parser).

Command modules import only argparse at load time; what a command needs
(pandas, matplotlib, the sweep machinery) is imported when it runs.
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType

# Command modules in the order `flashsched --help` lists them; each is
# imported only when its command runs (or `--help` lists them all).
MODULES = (
    "run",
    "compare",
    "sweep",
    "reproduce",
    "report",
    "array_compare",
    "replay",
    "probe",
    "calibrate",
    "validate",
    "import_",
    "catalog",
    "bench",
)

# The module registering each command name (kept equal to what the
# modules register by tests/test_cli_args.py).
BY_NAME = {
    "run": "run",
    "demo": "run",
    "compare": "compare",
    "sweep": "sweep",
    "reproduce": "reproduce",
    "report": "report",
    "array-compare": "array_compare",
    "replay": "replay",
    "probe": "probe",
    "calibrate": "calibrate",
    "validate": "validate",
    "import": "import_",
    "presets": "catalog",
    "formats": "catalog",
    "schedulers": "catalog",
    "config": "catalog",
    "bench": "bench",
}


def module(name: str) -> ModuleType:
    """The command module ``name`` (one of ``MODULES``)."""
    return importlib.import_module(f"flashsched.commands.{name}")


def register_all(sub: argparse._SubParsersAction, command: str | None = None) -> None:
    """Add every command module's subparser, or only the one module that
    registers ``command``: importing every command module and building all
    ~200 options is a third of a small run's start-up."""
    if command in BY_NAME:
        module(BY_NAME[command]).register(sub)
        return
    for m in MODULES:
        module(m).register(sub)
