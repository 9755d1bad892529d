"""What every sub-command shares: the help formatter (defaults shown), value
types that turn a bad number or path into a one-line usage error (exit 2,
no traceback), the device/scheduler options, progress flags, and old option
spellings kept as aliases that print a deprecation note.

The vocabulary (one name and unit per concept) is in docs/vocabulary.md.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from typing import Any

U64_MAX = 2**64 - 1


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Shows each option's default, except for flags and when there is none
    to show (None, an empty list) or the help already says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        h = action.help or ""
        d = action.default
        if action.nargs == 0 or "%(default)" in h or d is None or d == [] or d is argparse.SUPPRESS:
            return h
        return super()._get_help_string(action)


def add_command(
    sub: argparse._SubParsersAction, name: str, help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """A sub-command parser with the shared formatter; ``help`` is also its
    description unless one is given."""
    p: argparse.ArgumentParser = sub.add_parser(
        name, help=help, description=description or help, formatter_class=HelpFormatter
    )
    return p


# --- value types ---------------------------------------------------------


def _int(text: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def seed(text: str) -> int:
    """A seed: a whole number in [0, 2^64 - 1] (``1e23`` and ``-1`` are not)."""
    v = _int(text)
    if not 0 <= v <= U64_MAX:
        raise argparse.ArgumentTypeError(f"{v} is outside [0, 2^64-1]")
    return v


def positive_int(text: str) -> int:
    """A whole number ≥ 1."""
    v = _int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 1, got {v}")
    return v


def limit(text: str) -> int:
    """``--limit``: ≥ 1 (a run of no records is an error, as an empty trace is)."""
    v = _int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(
            f"expected a number of requests ≥ 1, got {v} (a run with no records is an error)"
        )
    return v


def positive_float(text: str) -> float:
    """A finite number > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return v


def fraction(text: str) -> float:
    """A number in (0, 1]."""
    v = positive_float(text)
    if v > 1:
        raise argparse.ArgumentTypeError(f"expected a fraction in (0, 1], got {text!r}")
    return v


def out_dir(text: str) -> str:
    """A directory to write into: it may exist (as a directory) or not."""
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} exists and is not a directory")
    return text


def out_file(text: str) -> str:
    """A file to write (``-`` = stdout): not an existing directory, and its
    directory must exist."""
    if text == "-":
        return text
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is a directory")
    parent = os.path.dirname(text) or "."
    if not os.path.isdir(parent):
        raise argparse.ArgumentTypeError(f"directory {parent!r} does not exist")
    return text


# --- shared options ------------------------------------------------------


class Deprecated(argparse.Action):
    """An old spelling of an option: stores into the new option's ``dest``
    and prints a note naming the new spelling. Hidden from ``--help``
    (docs/vocabulary.md lists the old spellings)."""

    def __init__(
        self, option_strings: Sequence[str], dest: str, new: str, append: bool = False, **kw: Any
    ) -> None:
        self.new = new
        self.append = append
        kw.setdefault("help", argparse.SUPPRESS)
        super().__init__(option_strings, dest, **kw)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"flashsched: note: {option_string} is deprecated; use {self.new}", file=sys.stderr)
        if self.append:
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])
        else:
            setattr(namespace, self.dest, values)


def add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a device config key, e.g. timing.read_us=50 (repeatable)",
    )


def add_device(p: argparse.ArgumentParser, default: str = "default", many: bool = False) -> None:
    """--device and --set."""
    what = "preset name(s) or device file(s), comma-separated" if many else "preset or device file"
    p.add_argument(
        "--device",
        default=default,
        help=f"{what}: a TOML file, or MQSim ssdconfig.xml / SSDsim page.parameters "
        "(see `flashsched presets`)",
    )
    add_set(p)


def add_schedulers(p: argparse.ArgumentParser, many: bool = False) -> None:
    """--host-sched, --device-sched, --queue-depth (+ old spellings)."""
    lst = "comma-separated list; " if many else ""
    p.add_argument(
        "--host-sched",
        metavar="NAME",
        help=f"host I/O scheduler ({lst}see `flashsched schedulers`; default: the device's)",
    )
    p.add_argument(
        "--device-sched",
        metavar="NAME",
        help=f"flash transaction scheduler ({lst}default: the device's)",
    )
    p.add_argument("--host-scheduler", dest="host_sched", action=Deprecated, new="--host-sched")
    p.add_argument(
        "--device-scheduler", dest="device_sched", action=Deprecated, new="--device-sched"
    )
    p.add_argument(
        "--queue-depth",
        type=positive_int,
        metavar="N",
        help="device queue depth (default: the device's host.queue_depth)",
    )


def add_seed(p: argparse.ArgumentParser) -> None:
    p.add_argument("--seed", type=seed, default=42, help="random seed, 0 to 2^64-1")


def add_progress(p: argparse.ArgumentParser) -> None:
    """--progress / --no-progress (default: a bar only on a terminal)."""
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress",
        dest="progress",
        action="store_true",
        default=None,
        help="show a progress bar (default: only when stderr is a terminal)",
    )
    bar.add_argument(
        "--no-progress", dest="progress", action="store_false", help="never show a progress bar"
    )


def add_check(p: argparse.ArgumentParser, what: str = "every run") -> None:
    p.add_argument(
        "--check",
        action="store_true",
        help=f"check {what} against a version oracle and audit invariants (1.3-1.8x slower)",
    )


#: The named trace formats (the core's registry, `flashsched formats`; kept
#: here so building the parser does not load the native module; a test checks
#: the two agree).
TRACE_FORMATS = [
    "msr",
    "spc",
    "ascii-ns",
    "ascii-ms",
    "ssdsim",
    "blkparse",
    "blkparse-q",
    "fiu",
    "heimdall",
    "systor",
    "alibaba",
    "tencent",
    "vscsi",
    "cloudphysics",
]


def format_help() -> str:
    """--format help: every format and the column-mapping syntax."""
    return (
        f"trace format: auto (detect; refuses to guess between readings), "
        f"{', '.join(TRACE_FORMATS)}, or a column mapping "
        "csv:time=0:ms,op=3:R/W,offset=4:B,size=5:B,skip=1 (ws:... for whitespace) "
        "or a FILE.toml holding one (docs/traces.md, `flashsched formats`)"
    )
