"""The few TOML forms the importers write (scalars, string lists, comments)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Union

Scalar = Union[str, int, float, bool]


def value(v: Scalar | Sequence[str]) -> str:
    """A TOML value: strings quoted (JSON escapes are valid TOML basic
    strings), floats always with a point, lists of strings."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v} has no TOML form here")
        r = repr(v)
        return r if ("." in r or "e" in r) else r + ".0"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    return "[" + ", ".join(value(x) for x in v) + "]"


def key(k: str) -> str:
    """A bare key when TOML allows one, else quoted (dotted config keys)."""
    ok = k and all(c.isalnum() or c in "_-" for c in k)
    return k if ok else json.dumps(k)


def comment_block(title: str, lines: Sequence[str]) -> list[str]:
    if not lines:
        return []
    return [f"# {title}:"] + [f"#   {ln}" for ln in lines]
