"""Importers: other simulators' and tools' configuration files as flashsched
devices and workloads (docs/importers.md).

- :func:`load_device` — MQSim ``ssdconfig.xml`` or SSDsim ``page.parameters``
  → :class:`DeviceImport` (``.to_toml()``, ``.overrides()``, ``.warnings``);
- :func:`load_workloads` — MQSim ``workload.xml`` or a fio job file →
  :class:`WorkloadImport` (``.to_toml()`` is a runnable sweep spec,
  ``.pick(name)`` one workload, ``.warnings``).

Every key that is not carried over exactly is in ``.warnings`` (file, line,
key and why); a malformed file raises :class:`ImporterError` (a
``ConfigError``) naming the file, line or element and key.
``flashsched run --device ssdconfig.xml`` / ``--device page.parameters`` and
``--synthetic job.fio`` convert through these (:func:`resolve_device`,
:func:`resolve_synthetic`).
"""

from __future__ import annotations

import os
from pathlib import Path

from flashsched.importers import fio, mqsim, mqsim_workload, ssdsim, xmltree
from flashsched.importers.device import DeviceImport
from flashsched.importers.notes import ImporterError, Note
from flashsched.importers.workloads import ImportedWorkload, WorkloadImport

DEVICE_KINDS = {"mqsim": mqsim.load, "ssdsim": ssdsim.load}
WORKLOAD_KINDS = {"mqsim-workload": mqsim_workload.load, "fio": fio.load}
FIO_SUFFIXES = (".fio", ".job", ".ini")

__all__ = [
    "DeviceImport",
    "WorkloadImport",
    "ImportedWorkload",
    "ImporterError",
    "Note",
    "load_device",
    "load_workloads",
    "detect_device",
    "resolve_device",
    "resolve_synthetic",
]


def detect_device(path: str | os.PathLike[str]) -> str | None:
    """``"mqsim"`` or ``"ssdsim"`` when ``path`` is such a device file (by
    content; the extension only decides which content to look for), else
    None (a flashsched TOML, a preset name, anything else)."""
    p = Path(path)
    if not p.is_file() or p.suffix == ".toml":
        return None
    head = _head(p)
    if p.suffix == ".xml" or head.lstrip().startswith(b"<"):
        tag = xmltree.root_tag(p)
        if tag in (mqsim.ROOT, mqsim.WORKLOAD_ROOT):
            return "mqsim"  # the importer names a workload file given as a device
        return None
    text = head.decode("latin-1").lower()
    if p.suffix == ".parameters" or ("channel number" in text and "page capacity" in text):
        return "ssdsim"
    return None


def load_device(path: str | os.PathLike[str], kind: str | None = None) -> DeviceImport:
    """Convert a device file (``kind`` = ``mqsim`` | ``ssdsim``; detected
    when None)."""
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    kind = kind or detect_device(path)
    if kind not in DEVICE_KINDS:
        raise ImporterError(
            f"{Path(path).name}: not an MQSim ssdconfig.xml or SSDsim page.parameters file"
        )
    return DEVICE_KINDS[kind](Path(path))


def load_workloads(path: str | os.PathLike[str], kind: str) -> WorkloadImport:
    """Convert a workload file (``kind`` = ``mqsim-workload`` | ``fio``)."""
    if kind not in WORKLOAD_KINDS:
        raise ValueError(f"unknown workload importer {kind!r} (known: {', '.join(WORKLOAD_KINDS)})")
    if not Path(path).is_file():
        raise FileNotFoundError(f"no such file: {path}")
    return WORKLOAD_KINDS[kind](Path(path))


def resolve_device(device: str) -> tuple[str, list[str], list[str]]:
    """``(device, overrides, warnings)`` for a run: an MQSim or SSDsim file
    becomes flashsched's ``default`` preset with the converted keys as
    overrides; anything else passes through unchanged."""
    if detect_device(device) is None:
        return device, [], []
    imp = load_device(device)
    return "default", imp.overrides(), imp.warnings


def resolve_synthetic(spec: str) -> tuple[str, list[str], list[str]]:
    """``(spec, overrides, warnings)``: a fio job file (``job.fio``, or
    ``job.fio:NAME`` for one of several jobs) becomes its synthetic spec;
    a spec string passes through unchanged."""
    path, job = spec, None
    if not Path(path).is_file() and ":" in spec:
        path, job = spec.rsplit(":", 1)
    p = Path(path)
    if not p.is_file() or "=" in p.name:
        return spec, [], []
    if p.suffix.lower() not in FIO_SUFFIXES and not _looks_like_fio(p):
        raise ImporterError(f"{p.name}: --synthetic takes a spec or a fio job file (.fio)")
    imp = fio.load(p)
    w = imp.pick(job)
    return w.synthetic or "", w.overrides(), imp.warnings


def _head(p: Path) -> bytes:
    with p.open("rb") as f:
        return f.read(8192)


def _looks_like_fio(p: Path) -> bool:
    text = _head(p).decode("utf-8", "replace")
    return any(ln.strip().startswith("[") for ln in text.splitlines())
