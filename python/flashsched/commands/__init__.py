"""CLI sub-commands, one module each (``register(sub)`` adds its parser).

Command modules import only argparse at load time; what a command needs
(pandas, matplotlib, the sweep machinery) is imported when it runs.
"""

from __future__ import annotations

import argparse

from flashsched.commands import (
    array_compare,
    bench,
    catalog,
    compare,
    import_,
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
    validate,
    import_,
    catalog,
    bench,
)


def register_all(sub: argparse._SubParsersAction) -> None:
    """Add every command module's subparser."""
    for m in MODULES:
        m.register(sub)
