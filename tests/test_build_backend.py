"""The build backend's PGO choice (build_backend/flashsched_build.py): the
committed profile is used exactly when the rustc building fits it, never
silently half-applied, and the caller's flags and environment survive."""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from flashsched import _core

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "build_backend"))
import flashsched_build as fb  # noqa: E402


@pytest.fixture
def fake_rustc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A `rustc` that reports release 9.9.9 (the backend runs `$RUSTC -vV`)."""
    exe = tmp_path / "rustc"
    exe.write_text("#!/bin/sh\necho 'rustc 9.9.9 (fake)'\necho 'release: 9.9.9'\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("RUSTC", str(exe))
    return exe


def write_profile(d: Path, data: bytes, rustc: str = "9.9.9", sha: str | None = None) -> Path:
    d.mkdir(parents=True, exist_ok=True)
    (d / "flashsched.profdata.xz").write_bytes(lzma.compress(data))
    meta = {"rustc": rustc, "commit": "0123456789abcdef", "sha256": sha}
    meta["sha256"] = sha or hashlib.sha256(data).hexdigest()
    (d / "profile.json").write_text(json.dumps(meta))
    return d


def test_profile_unpacked_when_rustc_matches(tmp_path: Path, fake_rustc: Path) -> None:
    d = write_profile(tmp_path / "pgo", b"counts")
    path, ident = fb.unpacked_profile(d)
    assert path.read_bytes() == b"counts"
    assert path.parent == tmp_path / "target" / "pgo"
    digest = hashlib.sha256(b"counts").hexdigest()
    # No sources next to this profile: it says they changed since training.
    assert ident == f"{digest[:12]}, trained on 0123456789, Rust sources changed since"
    # A second build reuses the unpacked file.
    assert fb.unpacked_profile(d)[0] == path


def test_sources_digest_follows_the_rust_sources(tmp_path: Path) -> None:
    src = tmp_path / "crates" / "core" / "src"
    src.mkdir(parents=True)
    (tmp_path / "Cargo.lock").write_text("lock")
    (src / "lib.rs").write_text("fn a() {}")
    a = fb.sources_digest(tmp_path)
    (tmp_path / "README.md").write_text("docs do not count")
    assert fb.sources_digest(tmp_path) == a
    (src / "lib.rs").write_text("fn a() { b() }")
    assert fb.sources_digest(tmp_path) != a
    # A renamed file is a change too.
    (src / "lib.rs").rename(src / "main.rs")
    (src / "main.rs").write_text("fn a() {}")
    assert fb.sources_digest(tmp_path) != a


def test_profile_trained_on_these_sources_says_so(tmp_path: Path, fake_rustc: Path) -> None:
    d = write_profile(tmp_path / "pgo", b"counts")
    meta = json.loads((d / "profile.json").read_text())
    meta["sources"] = fb.sources_digest(tmp_path)
    (d / "profile.json").write_text(json.dumps(meta))
    assert fb.unpacked_profile(d)[1].endswith(", trained on 0123456789")


def test_other_rustc_is_refused_naming_both(tmp_path: Path, fake_rustc: Path) -> None:
    d = write_profile(tmp_path / "pgo", b"counts", rustc="1.0.0")
    with pytest.raises(fb.PgoUnavailable, match=r"rustc 1\.0\.0, this is rustc 9\.9\.9"):
        fb.unpacked_profile(d)


def test_damaged_or_missing_profile_is_refused(tmp_path: Path, fake_rustc: Path) -> None:
    d = write_profile(tmp_path / "pgo", b"counts", sha="0" * 64)
    with pytest.raises(fb.PgoUnavailable, match="does not match the sha256"):
        fb.unpacked_profile(d)
    with pytest.raises(fb.PgoUnavailable, match="no usable profile"):
        fb.unpacked_profile(tmp_path / "absent")
    (d / "flashsched.profdata.xz").write_bytes(b"not xz")
    with pytest.raises(fb.PgoUnavailable):
        fb.unpacked_profile(d)


def test_missing_rustc_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    d = write_profile(tmp_path / "pgo", b"counts")
    monkeypatch.setenv("RUSTC", str(tmp_path / "no-such-rustc"))
    with pytest.raises(fb.PgoUnavailable, match="cannot run"):
        fb.unpacked_profile(d)


def test_env_appends_to_callers_flags_and_restores(
    tmp_path: Path, fake_rustc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fb, "PROFILE_DIR", write_profile(tmp_path / "pgo", b"counts"))
    monkeypatch.delenv("CARGO_ENCODED_RUSTFLAGS", raising=False)
    monkeypatch.setenv("RUSTFLAGS", "-Ctarget-cpu=native  -Cdebuginfo=1")
    monkeypatch.delenv("FLASHSCHED_PGO", raising=False)
    with fb.pgo_env():
        flags = os.environ["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
        assert flags[:2] == ["-Ctarget-cpu=native", "-Cdebuginfo=1"]
        assert flags[2] == f"-Cprofile-use={tmp_path / 'target' / 'pgo'}/" + (
            f"{hashlib.sha256(b'counts').hexdigest()[:16]}.profdata"
        )
        assert "trained on 0123456789" in os.environ["FLASHSCHED_PGO_PROFILE"]
    assert "CARGO_ENCODED_RUSTFLAGS" not in os.environ
    assert "FLASHSCHED_PGO_PROFILE" not in os.environ
    assert os.environ["RUSTFLAGS"] == "-Ctarget-cpu=native  -Cdebuginfo=1"


def test_encoded_flags_win_and_keep_spaces(
    tmp_path: Path, fake_rustc: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fb, "PROFILE_DIR", write_profile(tmp_path / "pgo", b"counts"))
    monkeypatch.setenv("CARGO_ENCODED_RUSTFLAGS", "-L\x1f/a path/with spaces")
    monkeypatch.setenv("RUSTFLAGS", "-Cignored")
    with fb.pgo_env():
        flags = os.environ["CARGO_ENCODED_RUSTFLAGS"].split("\x1f")
        assert flags[:2] == ["-L", "/a path/with spaces"]
        assert flags[2].startswith("-Cprofile-use=")
    assert os.environ["CARGO_ENCODED_RUSTFLAGS"] == "-L\x1f/a path/with spaces"


def test_modes(tmp_path: Path, fake_rustc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fb, "PROFILE_DIR", write_profile(tmp_path / "pgo", b"x", rustc="1.0.0"))
    monkeypatch.delenv("CARGO_ENCODED_RUSTFLAGS", raising=False)
    # A stale id in the environment is not passed on as this build's profile.
    monkeypatch.setenv("FLASHSCHED_PGO_PROFILE", "stale")
    for mode in ("0", "auto"):  # off, and auto with a profile that does not fit
        monkeypatch.setenv("FLASHSCHED_PGO", mode)
        with fb.pgo_env():
            assert "CARGO_ENCODED_RUSTFLAGS" not in os.environ
            assert "FLASHSCHED_PGO_PROFILE" not in os.environ
        assert os.environ["FLASHSCHED_PGO_PROFILE"] == "stale"
    monkeypatch.setenv("FLASHSCHED_PGO", "require")
    require = "FLASHSCHED_PGO=require: the profile was trained"
    with pytest.raises(RuntimeError, match=require), fb.pgo_env():
        pass
    monkeypatch.setenv("FLASHSCHED_PGO", "yes")
    with pytest.raises(ValueError, match="expected auto, 0 or require"), fb.pgo_env():
        pass


def test_maturin_hooks_are_passed_through() -> None:
    pytest.importorskip("maturin")
    import maturin

    assert fb.build_sdist is maturin.build_sdist
    with pytest.raises(AttributeError):
        _ = fb.no_such_hook


def test_installed_build_used_the_profile_when_it_fits() -> None:
    """This install was built by the README's `pip install .`: if the
    committed profile fits the rustc here, the extension must carry it
    (else every benchmark silently measures a slower build)."""
    try:
        out = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("no rustc here: the build's toolchain is unknown")
    release = next(ln.split(": ", 1)[1] for ln in out.stdout.splitlines() if ln.startswith("rel"))
    meta = json.loads((ROOT / "pgo" / "profile.json").read_text())
    if meta["rustc"] != release:
        pytest.skip(f"profile trained with rustc {meta['rustc']}, this is {release}")
    if os.environ.get("FLASHSCHED_PGO") == "0":
        pytest.skip("FLASHSCHED_PGO=0: built without the profile on purpose")
    assert _core.BUILD_PGO is not None, "pip install . did not apply the committed PGO profile"
    assert _core.BUILD_PGO.startswith(meta["sha256"][:12]), (
        f"installed with profile {_core.BUILD_PGO}, the committed one is "
        f"{meta['sha256'][:12]}: reinstall (pip install .)"
    )
