"""Checks of the public API's arguments, before they reach the native core.

A wrong type raises :class:`~flashsched.exceptions.ArgumentTypeError` and a
value outside its domain :class:`~flashsched.exceptions.ArgumentValueError`,
each naming the argument, instead of the bare ``TypeError`` or
``OverflowError`` the bindings' conversions would give. Numbers are never
taken from strings (``queue_depth="32"`` is refused), and ``bool`` is not
accepted where a number is meant.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from typing import Any

from flashsched.exceptions import ArgumentTypeError, ArgumentValueError

U64_MAX = 2**64 - 1


def _kind(v: Any) -> str:
    return f"{type(v).__name__} {v!r}" if len(repr(v)) <= 40 else type(v).__name__


def integer(name: str, v: Any, lo: int = 0, hi: int = U64_MAX) -> int:
    """``v`` as an int in ``[lo, hi]`` (a float with an integral value is not
    accepted: ``1e23`` is not a seed)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise ArgumentTypeError(f"{name}: expected an integer, got {_kind(v)}")
    if not lo <= v <= hi:
        raise ArgumentValueError(f"{name}: {v} is outside [{lo}, {hi}]")
    return int(v)


def optional_integer(name: str, v: Any, lo: int = 0, hi: int = U64_MAX) -> int | None:
    return None if v is None else integer(name, v, lo, hi)


def number(name: str, v: Any, *, positive: bool = False, lo: float | None = None) -> float:
    """``v`` as a finite float (``positive``: > 0; ``lo``: ≥ lo)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ArgumentTypeError(f"{name}: expected a number, got {_kind(v)}")
    f = float(v)
    if not math.isfinite(f):
        raise ArgumentValueError(f"{name}: expected a finite number, got {v!r}")
    if positive and f <= 0:
        raise ArgumentValueError(f"{name}: expected a number > 0, got {v!r}")
    if lo is not None and f < lo:
        raise ArgumentValueError(f"{name}: expected a number ≥ {lo:g}, got {v!r}")
    return f


def memory_size(name: str, v: Any) -> str | None:
    """A memory limit as the core parses it (a size such as ``"8GiB"``,
    ``"off"``; its errors name ``name``): a string, a whole number of bytes,
    or None (the default limit)."""
    if v is None or isinstance(v, str):
        return v
    if isinstance(v, bool) or not isinstance(v, int):
        raise ArgumentTypeError(
            f"{name}: expected a size such as '8GiB', a number of bytes or 'off', got {_kind(v)}"
        )
    return str(v)


def text(name: str, v: Any) -> str:
    if not isinstance(v, str):
        raise ArgumentTypeError(f"{name}: expected a string, got {_kind(v)}")
    return v


def optional_text(name: str, v: Any) -> str | None:
    return None if v is None else text(name, v)


def path(name: str, v: Any) -> str:
    """A file or directory name: ``str`` or ``os.PathLike`` (not bytes)."""
    if isinstance(v, str):
        return v
    if isinstance(v, os.PathLike):
        p = os.fspath(v)
        if isinstance(p, str):
            return p
    raise ArgumentTypeError(f"{name}: expected a path (str or os.PathLike), got {_kind(v)}")


def optional_path(name: str, v: Any) -> str | None:
    return None if v is None else path(name, v)


def flag(name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise ArgumentTypeError(f"{name}: expected True or False, got {_kind(v)}")
    return v


def optional_flag(name: str, v: Any) -> bool | None:
    """True, False or None (``progress``: None = only on a terminal)."""
    return None if v is None else flag(name, v)


def one_of(name: str, v: Any, choices: Iterable[str]) -> str:
    choices = list(choices)
    text(name, v)
    if v not in choices:
        raise ArgumentValueError(f"{name}: unknown value {v!r} (choose from {', '.join(choices)})")
    return str(v)


def _override_value(key: str, v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, str)):
        return str(v)
    raise ArgumentTypeError(
        f"overrides[{key!r}]: expected a string, number or boolean, got {_kind(v)}"
    )


def overrides(v: Any) -> list[str]:
    """Config overrides as the core's ``section.key=value`` strings, from
    ``None``, one such string, a sequence of them, or a mapping
    ``{"timing.read_us": 50}``."""
    if v is None:
        return []
    if isinstance(v, str):
        return [v]
    if isinstance(v, Mapping):
        out = []
        for k, x in v.items():
            if not isinstance(k, str):
                raise ArgumentTypeError(f"overrides: keys must be strings, got {_kind(k)}")
            out.append(f"{k}={_override_value(k, x)}")
        return out
    if isinstance(v, (list, tuple)):
        for i, s in enumerate(v):
            if not isinstance(s, str):
                raise ArgumentTypeError(
                    f"overrides[{i}]: expected a 'section.key=value' string, got {_kind(s)}"
                )
        return list(v)
    raise ArgumentTypeError(
        "overrides: expected 'section.key=value' strings (a list) or a mapping "
        f"{{'section.key': value}}, got {_kind(v)}"
    )


def names(name: str, v: Any) -> list[str]:
    """A comma-separated string or a sequence of strings, as a list of names."""
    if v is None:
        return []
    items = [v] if isinstance(v, str) else v
    if not isinstance(items, (list, tuple)):
        raise ArgumentTypeError(f"{name}: expected a string or a list of strings, got {_kind(v)}")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise ArgumentTypeError(f"{name}[{i}]: expected a string, got {_kind(item)}")
        out += [x.strip() for x in item.split(",") if x.strip()]
    return out


def strings(name: str, v: Any) -> list[str]:
    """A list or tuple of strings, as given (no comma splitting)."""
    if not isinstance(v, (list, tuple)):
        raise ArgumentTypeError(f"{name}: expected a list of strings, got {_kind(v)}")
    for i, item in enumerate(v):
        if not isinstance(item, str):
            raise ArgumentTypeError(f"{name}[{i}]: expected a string, got {_kind(item)}")
    return list(v)
