"""CLI commands that live in their own modules (each has ``register(sub)``)."""

from __future__ import annotations

import argparse

from flashsched.commands import array_compare, compare, report, reproduce, sweep, validate

MODULES = (sweep, reproduce, report, array_compare, compare, validate)


def register_all(sub: argparse._SubParsersAction) -> None:
    """Add every command module's subparser."""
    for m in MODULES:
        m.register(sub)
