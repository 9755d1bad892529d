"""CLI sub-commands, one module each (``register(sub)`` adds its parser).

Command modules import only argparse at load time; what a command needs
(pandas, matplotlib, the sweep machinery) is imported when it runs.
"""

from __future__ import annotations

import argparse

from flashsched.commands import (
    array_compare,
    bench,
    calibrate,
    catalog,
    compare,
    import_,
    probe,
    replay,
    report,
    reproduce,
    run,
    sweep,
    validate,
)

# in the order `flashsched --help` lists them
MODULES = (
    run,
    compare,
    sweep,
    reproduce,
    report,
    array_compare,
    replay,
    probe,
    calibrate,
    validate,
    import_,
    catalog,
    bench,
)


# The module registering each command name (kept equal to what the
# modules register by tests/test_cli_args.py).
BY_NAME = {
    "run": run,
    "demo": run,
    "compare": compare,
    "sweep": sweep,
    "reproduce": reproduce,
    "report": report,
    "array-compare": array_compare,
    "replay": replay,
    "probe": probe,
    "calibrate": calibrate,
    "validate": validate,
    "import": import_,
    "presets": catalog,
    "formats": catalog,
    "schedulers": catalog,
    "config": catalog,
    "bench": bench,
}


def register_all(sub: argparse._SubParsersAction, command: str | None = None) -> None:
    """Add every command module's subparser, or only the one module that
    registers ``command``: building all ~200 options of every command is a
    third of a small run's start-up."""
    if command in BY_NAME:
        BY_NAME[command].register(sub)
        return
    for m in MODULES:
        m.register(sub)
