"""CLI commands that live in their own modules (each has ``register(sub)``)."""

from __future__ import annotations

import argparse

from flashsched.commands import array_compare, compare, report, reproduce, sweep
from flashsched.commands import calibrate as calibrate_cmd
from flashsched.commands import probe as probe_cmd
from flashsched.commands import replay as replay_cmd

MODULES = (sweep, reproduce, report, array_compare, compare)
MODULES += (replay_cmd,)  # flashsched replay
MODULES += (probe_cmd,)  # flashsched probe
MODULES += (calibrate_cmd,)  # flashsched calibrate


def register_all(sub: argparse._SubParsersAction) -> None:
    """Add every command module's subparser."""
    for m in MODULES:
        m.register(sub)
