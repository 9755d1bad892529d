"""PEP 517 build backend: maturin, plus the committed PGO profile when it fits.

`pip install .` builds the extension with maturin (``[tool.maturin]`` in
pyproject.toml). This wrapper adds LLVM profile-guided optimisation from
``pgo/flashsched.profdata.xz``: branch weights and hot/cold placement
measured by running the training workloads (``scripts/pgo_refresh.py``) on an
instrumented build. It changes speed only, never results.

The profile names functions by their mangled symbols, which embed the
compiler's version, so it is used only when the rustc building now is the
release it was trained with (``pgo/profile.json``); any other rustc would
match nothing, and an older LLVM cannot read the file. Then the build goes
ahead without it and says so.

``FLASHSCHED_PGO``: unset or ``auto`` uses the profile when it fits, ``0``
never, ``require`` fails the build if it cannot (benchmarks).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import lzma
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

# maturin's PEP 517 hooks that need no profile, passed through unchanged
# (looked up on use, so this module imports without maturin: its tests).
_PASSED = (
    "build_sdist",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable",
    "prepare_metadata_for_build_wheel",
)


def __getattr__(name: str) -> Any:
    if name in _PASSED:
        import maturin

        return getattr(maturin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


ROOT = Path(__file__).resolve().parent.parent
PROFILE_DIR = ROOT / "pgo"


class PgoUnavailable(Exception):
    """The committed profile cannot be used by this build."""


def _note(msg: str) -> None:
    print(f"flashsched build: {msg}", file=sys.stderr, flush=True)


def rustc_info() -> dict[str, str]:
    """What the rustc cargo will run says of itself (``rustc -vV``:
    ``release``, ``host``, ``LLVM version``, ...)."""
    cmd = [os.environ.get("RUSTC", "rustc"), "-vV"]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise PgoUnavailable(f"cannot run `{' '.join(cmd)}`: {e}") from e
    info = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    if "release" not in info:
        raise PgoUnavailable(f"`{' '.join(cmd)}` printed no release line")
    return info


def sources_digest(root: Path) -> str:
    """sha256 of what the profile's function counts depend on: the crates'
    Rust sources and manifests, and the lock file."""
    h = hashlib.sha256()
    files = [root / "Cargo.lock", root / "Cargo.toml"]
    files += sorted((root / "crates").glob("*/Cargo.toml"))
    files += sorted((root / "crates").glob("*/src/**/*.rs"))
    for f in files:
        if f.is_file():
            h.update(f.relative_to(root).as_posix().encode() + b"\0")
            h.update(f.read_bytes() + b"\0")
    return h.hexdigest()


def unpacked_profile(profile_dir: Path | None = None) -> tuple[Path, str]:
    """The profile, decompressed under ``target/pgo``, and its id, if it fits
    the rustc cargo will run; raises [`PgoUnavailable`] saying why not."""
    profile_dir = profile_dir or PROFILE_DIR
    meta_path = profile_dir / "profile.json"
    data_path = profile_dir / "flashsched.profdata.xz"
    try:
        meta = json.loads(meta_path.read_text())
        packed = data_path.read_bytes()
    except (OSError, ValueError) as e:
        raise PgoUnavailable(f"no usable profile in {profile_dir}: {e}") from e
    release = rustc_info()["release"]
    if meta.get("rustc") != release:
        raise PgoUnavailable(
            f"the profile was trained with rustc {meta.get('rustc')}, this is rustc {release} "
            "(scripts/pgo_refresh.py trains one for it)"
        )
    try:
        raw = lzma.decompress(packed)
    except lzma.LZMAError as e:
        raise PgoUnavailable(f"{data_path}: {e}") from e
    digest = hashlib.sha256(raw).hexdigest()
    if digest != meta.get("sha256"):
        raise PgoUnavailable(f"{data_path} does not match the sha256 in {meta_path}")
    # A function changed since training is built as without a profile: the
    # id says so, and benchmarks print it.
    ident = f"{digest[:12]}, trained on {meta.get('commit', '?')[:10]}"
    if meta.get("sources") != sources_digest(profile_dir.parent):
        ident += ", Rust sources changed since"
    # Beside the build's own files, or in the temp dir if the tree is
    # read-only.
    last: OSError | None = None
    for base in (profile_dir.parent / "target" / "pgo", Path(tempfile.gettempdir()) / "flashsched"):
        out = base / f"{digest[:16]}.profdata"
        try:
            if not out.exists():
                out.parent.mkdir(parents=True, exist_ok=True)
                tmp = out.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(raw)
                tmp.replace(out)
            return out, ident
        except OSError as e:
            last = e
    raise PgoUnavailable(f"cannot write the unpacked profile: {last}")


def _rustflags(extra: list[str]) -> str:
    """``CARGO_ENCODED_RUSTFLAGS`` with `extra` after the caller's flags
    (that variable wins over ``RUSTFLAGS``, and keeps paths with spaces)."""
    if "CARGO_ENCODED_RUSTFLAGS" in os.environ:
        have = [f for f in os.environ["CARGO_ENCODED_RUSTFLAGS"].split("\x1f") if f]
    else:
        have = os.environ.get("RUSTFLAGS", "").split()
    return "\x1f".join(have + extra)


@contextlib.contextmanager
def pgo_env() -> Iterator[None]:
    """The environment of a build with the profile, if it may be used."""
    mode = os.environ.get("FLASHSCHED_PGO", "auto").strip().lower()
    if mode not in ("auto", "", "0", "require"):
        raise ValueError(f"FLASHSCHED_PGO={mode!r}: expected auto, 0 or require")
    saved = {k: os.environ.get(k) for k in ("CARGO_ENCODED_RUSTFLAGS", "FLASHSCHED_PGO_PROFILE")}
    # The extension reports the profile it was built with (`BUILD_PGO`).
    os.environ.pop("FLASHSCHED_PGO_PROFILE", None)
    try:
        if mode == "0":
            _note("FLASHSCHED_PGO=0: building without the PGO profile")
        else:
            try:
                path, ident = unpacked_profile()
            except PgoUnavailable as e:
                if mode == "require":
                    raise RuntimeError(f"FLASHSCHED_PGO=require: {e}") from e
                _note(f"building without the PGO profile (about 15 % slower runs): {e}")
            else:
                # A function changed since training has no profile and is
                # built as without one; LLVM's per-function notes about that
                # are noise here.
                os.environ["CARGO_ENCODED_RUSTFLAGS"] = _rustflags(
                    [f"-Cprofile-use={path}", "-Cllvm-args=-no-pgo-warn-mismatch"]
                )
                os.environ["FLASHSCHED_PGO_PROFILE"] = ident
                _note(f"using PGO profile {ident}")
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _with_profile(hook: str, *args: Any) -> str:
    """maturin's `hook`, run in the environment of [`pgo_env`]."""
    import maturin

    with pgo_env():
        return str(getattr(maturin, hook)(*args))


def build_wheel(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return _with_profile("build_wheel", wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: Mapping[str, Any] | None = None,
    metadata_directory: str | None = None,
) -> str:
    return _with_profile("build_editable", wheel_directory, config_settings, metadata_directory)
