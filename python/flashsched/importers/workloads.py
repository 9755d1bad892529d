"""Imported workloads (fio jobs, MQSim flows), written as a runnable sweep
spec (docs/sweeps.md): one ``[workloads.NAME]`` per job or flow, and a
``[[points]]`` entry per workload that needs device settings of its own
(MQSim's preconditioning level, its caching mode)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from flashsched.importers.notes import ImporterError, Notes
from flashsched.importers.tomlout import comment_block, key, value

Value = Union[str, int, float, bool]


@dataclass
class ImportedWorkload:
    name: str
    description: str = ""
    synthetic: str | None = None
    trace: str | None = None
    format: str | None = None
    intensity: float | None = None
    limit: int | None = None
    # Device config keys this workload sets ("ftl.precondition_fill" -> 0.75).
    settings: dict[str, Value] = field(default_factory=dict)

    def overrides(self) -> list[str]:
        return [f"{k}={value(v)}" for k, v in self.settings.items()]


@dataclass
class WorkloadImport:
    """Workloads converted from a fio job file or an MQSim workload.xml."""

    source: str
    notes: Notes
    name: str
    workloads: dict[str, ImportedWorkload] = field(default_factory=dict)

    @property
    def warnings(self) -> list[str]:
        """Every key not carried over exactly, one line each."""
        return self.notes.lines()

    def pick(self, job: str | None = None) -> ImportedWorkload:
        """The workload named ``job``, or the only one."""
        names = ", ".join(self.workloads)
        if job is not None:
            if job not in self.workloads:
                raise ImporterError(f"{self.notes.file}: no job or flow `{job}` (it has: {names})")
            return self.workloads[job]
        if len(self.workloads) != 1:
            raise ImporterError(
                f"{self.notes.file} holds {len(self.workloads)} workloads ({names}); "
                f"pick one as {self.notes.file}:NAME"
            )
        return next(iter(self.workloads.values()))

    def to_toml(self, device: str | None = None) -> str:
        """A sweep spec running every workload (on ``device`` if given)."""
        out = [
            f"# flashsched sweep spec imported from {self.source} by `flashsched import`;",
            "# run it with `flashsched sweep FILE` (docs/sweeps.md).",
            *comment_block("Not carried over exactly", self.warnings),
            *comment_block("As flashsched always models them (no key needed)", self.notes.matched),
            f"name = {value(self.name)}",
            f"description = {value('imported from ' + self.source)}",
        ]
        if device is not None:
            out += ["", "[base]", f"device = {value(device)}"]
        for w in self.workloads.values():
            out += ["", f"[workloads.{key(w.name)}]"]
            if w.description:
                out.append(f"description = {value(w.description)}")
            rows: list[tuple[str, Value | None]] = [
                ("synthetic", w.synthetic),
                ("trace", w.trace),
                ("format", w.format),
                ("intensity", w.intensity),
                ("limit", w.limit),
            ]
            out += [f"{k} = {value(v)}" for k, v in rows if v is not None]
        if any(w.settings for w in self.workloads.values()):
            for w in self.workloads.values():
                out += ["", "[[points]]", f"workload = {value(w.name)}"]
                out += [f"{key(k)} = {value(v)}" for k, v in w.settings.items()]
        return "\n".join(out) + "\n"
