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


def register_all(sub: argparse._SubParsersAction) -> None:
    """Add every command module's subparser."""
    for m in MODULES:
        m.register(sub)
