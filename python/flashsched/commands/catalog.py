"""What this build knows: ``presets``, ``formats``, ``schedulers`` and
``config`` (a resolved, validated device config)."""

from __future__ import annotations

import argparse
import sys

from flashsched.commands import args as A


def register(sub: argparse._SubParsersAction) -> None:
    A.add_command(sub, "presets", "list device presets").set_defaults(func=cmd_presets)
    A.add_command(sub, "formats", "list trace formats").set_defaults(func=cmd_formats)
    A.add_command(sub, "schedulers", "list host and device schedulers").set_defaults(
        func=cmd_schedulers
    )
    c = A.add_command(sub, "config", "print a resolved, validated device config (TOML)")
    c.add_argument("device", nargs="?", default="default", help="preset name or device file")
    A.add_set(c)
    c.set_defaults(func=cmd_config)


def cmd_presets(_: argparse.Namespace) -> int:
    from flashsched import _core

    for name, desc in _core.presets():
        print(f"{name:<16} {desc}")
    return 0


def cmd_formats(_: argparse.Namespace) -> int:
    from flashsched import _core

    print(f"{'auto':<11} detect from the first records (and the file extension)")
    for name, desc in _core.formats():
        print(f"{name:<11} {desc}")
    print(
        "\nAny of them may be gzip-, zstd-, xz- or bzip2-compressed (recognised by its first "
        "bytes, read as a stream) and given as '-' (standard input) or a pipe."
    )
    return 0


def cmd_schedulers(_: argparse.Namespace) -> int:
    from flashsched import _core

    print("host:   " + ", ".join(_core.host_schedulers()))
    print("device: " + ", ".join(_core.device_schedulers()))
    return 0


def cmd_config(args: argparse.Namespace) -> int:
    from flashsched import api

    print(api.load_config(args.device, list(args.overrides)), end="")
    est = api.memory_estimate(args.device, list(args.overrides))
    print(
        f"memory estimate: {est['peak'] / 2**20:,.0f} MiB ({est['breakdown']}); "
        "check mode and per-request records add to it",
        file=sys.stderr,
    )
    return 0
