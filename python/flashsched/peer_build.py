"""Which build of a peer simulator was timed (``bench --versus``).

A ratio against MQSim or SSDsim is only as meaningful as the peer's build:
SSDsim's own Makefile compiles without optimisation (``gcc -c -g``), and an
``-O2`` build of the same commit runs its sample x100 in 3.76 s instead of
5.12 s (BENCHMARKS.md, session 41). So every timed peer is described by its
binary's digest, the commit of the checkout it sits in, and the compiler
and flags its debug information records (GCC's ``DW_AT_producer`` strings,
present when the build used ``-g``, as both peers' Makefiles do).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from pathlib import Path
from typing import Any

#: GCC's producer string: language, version, then the command-line flags.
_PRODUCER = re.compile(rb"GNU (?:C|C\+\+|Fortran)[\w+]* \d+\.\d+(?:\.\d+)? [ -~]{0,400}")
_OPT = re.compile(r"(?:^|\s)(-O(?:[0-3sgz]|fast)?)(?=\s|$)")


def producers(data: bytes) -> list[str]:
    """The distinct compiler producer strings in a binary's bytes (empty
    without debug information)."""
    seen: dict[str, None] = {}
    for m in _PRODUCER.finditer(data):
        seen.setdefault(m.group(0).decode("ascii", "replace"), None)
    return list(seen)


def optimisation(producer: str) -> str:
    """The optimisation level a producer string records (GCC applies the
    last ``-O`` given; none given is ``-O0``)."""
    levels = _OPT.findall(producer)
    if not levels:
        return "-O0"
    last = levels[-1]
    return "-O1" if last == "-O" else last


def _git(cwd: Path, *args: str) -> str | None:
    try:
        r = subprocess.run(
            ["git", "-C", str(cwd), *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout.strip() if r.returncode == 0 else None


def describe(binary: Path) -> dict[str, Any]:
    """Provenance of a peer binary: path, SHA-256, checkout commit (with
    ``dirty`` when tracked sources differ from it), compiler producer
    strings and the optimisation levels they record."""
    data = binary.read_bytes()
    commit = _git(binary.parent, "rev-parse", "HEAD")
    status = _git(binary.parent, "status", "--porcelain", "--untracked-files=no")
    prods = producers(data)
    levels = sorted({optimisation(p) for p in prods})
    return {
        "binary": str(binary.resolve()),
        "sha256": hashlib.sha256(data).hexdigest(),
        "commit": commit,
        "dirty": bool(status) if commit is not None else None,
        "producers": prods,
        "optimisation": levels,
    }


def summary_line(name: str, d: dict[str, Any]) -> str:
    """One line for the bench report, and a warning when the peer runs
    unoptimised (its ratio then reads higher than against an optimised
    build)."""
    commit = d["commit"][:10] if d["commit"] else "no git checkout"
    if d["dirty"]:
        commit += " (modified)"
    opt = "/".join(d["optimisation"]) or "unknown (no debug information)"
    line = f"# peer {name}: {d['binary']} sha256 {d['sha256'][:12]}, commit {commit}, built {opt}"
    if d["optimisation"] == ["-O0"]:
        line += (
            f"\n# warning: {name} is built without optimisation (as its own Makefile does); "
            "ratios against it read higher than against an -O2 build"
        )
    return line
