"""Per-request rows streamed to a Parquet file while a run goes, so a run of
any length holds a few row groups of them in memory whatever its length
(:data:`ROWS_HELD`; issue #23: 100M requests in bounded memory).

The core keeps rows in the order they are recorded (completion order, but
for requests SSDsim's clock dates back to their arrival);
:meth:`RecordStream.drain` takes the ones recorded since the last call and
hands them to a writer thread,
which appends them as row groups while the simulation goes on (the core
runs with the GIL released, so encoding overlaps it on a second core). The
file has the columns of :attr:`RunResult.requests <flashsched.results.RunResult.requests>`,
and a time series at any bin width is summed up as the rows pass (the rows
of bins that may still fill, those not ended before the core's
completion floor, are carried to the next piece, so a bin split between
pieces is counted once, with its exact p99).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from flashsched import _core

#: Rows per Parquet row group (~2.7 MB of columns in the core, ~4 MB as an
#: Arrow table while it is written). Small groups keep the write left after
#: the run's last step short (1M rows: 2^18 -> 2^16 is ~0.04 s less wall
#: time, BENCHMARKS.md, session 46).
ROWS_PER_GROUP = 1 << 16

#: Rows a run streaming to a file holds at most, the memory estimate's
#: count: three sets of row buffers (the one the core fills, the one in the
#: writer's hands and the one before it, which the core fills again once it
#: is written, `Simulation.take_records`), each with room for up to two
#: groups (:meth:`RecordStream.follow` runs the core on for a second group
#: while the writer is busy). 16 MiB.
ROWS_HELD = 6 * ROWS_PER_GROUP

#: How per-request rows are encoded (``pyarrow.parquet`` writer options).
#: A dictionary only for the columns with few values: for times, offsets
#: and latencies it is built, found too big and dropped, row group after
#: row group, at the cost of hashing every value (three quarters of the
#: write time). The times (nondecreasing completions, near-sorted arrivals
#: and dispatches) are stored as deltas. 1M rows of a random trace: 0.45
#: -> 0.11 s and 31 -> 18 MB (BENCHMARKS.md, session 40, "Rows to Parquet").
PARQUET_OPTIONS: dict[str, Any] = {
    "use_dictionary": ["op", "size", "stream"],
    "column_encoding": dict.fromkeys(
        ("arrival_ns", "dispatch_ns", "complete_ns"), "DELTA_BINARY_PACKED"
    ),
}


class RecordStream:
    """Writes a run's per-request rows to ``path`` in row groups of
    ``rows_per_group``; ``bin_ms`` also sums them into a time series.

    Rows go to ``path`` + ``.partial`` and the file takes its name on
    :meth:`close`, so an interrupted run leaves no file that looks whole.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        rows_per_group: int = ROWS_PER_GROUP,
        bin_ms: float | None = None,
    ) -> None:
        self.path = Path(path)
        self.rows_per_group = rows_per_group
        self.rows = 0
        self._partial = self.path.with_name(self.path.name + ".partial")
        self._writer: pq.ParquetWriter | None = None
        self._bin_ns: int | None = None
        if bin_ms is not None:
            from flashsched import results

            self._bin_ns = results.bin_width_ns(bin_ms)
        self._bins: list[dict[str, np.ndarray]] = []
        self._carry: dict[str, np.ndarray] | None = None
        # pyarrow (~0.1 s) and what the result needs are imported beside
        # the start of the run; the first group's job waits for that on the
        # writer's thread, not the simulation's.
        self._imports: _Job | None = start_imports()
        # One group's job at a time: groups are written (and binned) in
        # drain order, and at most one is in the writer's hands while the
        # core fills the next (two in `follow`; `ROWS_HELD`).
        self._pending: _Job | None = None

    def held(self, sim: _core.Simulation) -> int:
        """Rows the core holds now (completed and not yet drained)."""
        return int(sim.progress()[0]) - self.rows

    def maybe_drain(self, sim: _core.Simulation) -> None:
        """Drain once a row group's worth of rows is held."""
        if self.held(sim) >= self.rows_per_group:
            self.drain(sim)

    def follow(self, sim: _core.Simulation) -> None:
        """Run ``sim`` to its end, draining as each group's worth completes;
        while the writer still has the last group, the core runs on for up
        to a second one instead of waiting for it. (Early in a run the
        first group waits for pyarrow's import, ~0.1 s: on SSDsim's example
        x100 the core had the second group ready 15-30 ms before the writer
        was free.)"""
        group = self.rows_per_group
        while not sim.advance_until(self.rows + group):
            if self._writing() and sim.advance_until(self.rows + 2 * group):
                break
            self.drain(sim)
        self.drain(sim)

    def _writing(self) -> bool:
        """Whether the writer still has the last group drained."""
        return self._pending is not None and self._pending.running()

    def drain(self, sim: _core.Simulation) -> None:
        """Take every row the core holds and queue it for the file (written
        once the group before it is)."""
        cols = sim.take_records()
        n = len(cols["complete_ns"])
        if n == 0:
            return
        # No row recorded from here on completes before this (bins end).
        floor = sim.completion_floor() if self._bin_ns is not None else 0
        self.rows += n
        self._wait()
        self._pending = _Job(self._append, cols, floor, self._imports)
        self._imports = None

    def _wait(self) -> None:
        """Let the group in the writer's hands finish; its error, if any,
        is raised here."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            pending.result()

    def _append(self, cols: dict[str, Any], floor: int, before: _Job | None = None) -> None:
        """Write ``cols`` as a row group (after the job ``before``, the
        imports, has finished; its error is this one's); no row after them
        completes before ``floor``."""
        if before is not None:
            before.result()
        from flashsched import results

        self._write(results.arrow_rows(cols))
        if self._bin_ns is not None:
            self._add_bins(cols, floor)

    def _write(self, table: pa.Table) -> None:
        import pyarrow.parquet as pq

        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(self._partial, table.schema, **PARQUET_OPTIONS)
        # One group per drain (a drain holds a group's worth, a little over).
        self._writer.write_table(table, row_group_size=max(table.num_rows, 1))

    def _add_bins(self, cols: dict[str, Any], floor: int) -> None:
        import numpy as np

        from flashsched import results

        assert self._bin_ns is not None
        names = ("arrival_ns", "complete_ns", "op", "size")
        rows = {k: np.asarray(cols[k]) for k in names}
        if self._carry is not None:
            rows = {k: np.concatenate([self._carry[k], rows[k]]) for k in names}
        # A bin before the floor's has all its rows: binned now. The rest
        # wait. Rows are not always in completion order (SSDsim's clock
        # dates a request served from DRAM back to its arrival), so the
        # bins still filling are not just the last one.
        done = rows["complete_ns"] // self._bin_ns < floor // self._bin_ns
        self._carry = {k: v[~done] for k, v in rows.items()}
        if done.any():
            self._bins.append(results.raw_bins({k: v[done] for k, v in rows.items()}, self._bin_ns))

    def close(self) -> None:
        """Finish the file (an empty one with the columns if no row came)."""
        self._wait()
        if self._writer is None:
            from flashsched import results

            self._write(results.arrow_rows({}))
        assert self._writer is not None
        self._writer.close()
        os.replace(self._partial, self.path)

    def abandon(self) -> None:
        """Drop the partial file of a run that failed (a write that failed
        too is not reported: the run's own error is the one to see)."""
        with contextlib.suppress(Exception):
            self._wait()
        if self._writer is not None:
            self._writer.close()
        self._partial.unlink(missing_ok=True)

    def series(self) -> pd.DataFrame | None:
        """The series at ``bin_ms`` over every row drained (None without
        ``bin_ms``)."""
        if self._bin_ns is None:
            return None
        self._wait()
        import numpy as np

        from flashsched import results

        parts = list(self._bins)
        if self._carry is not None and len(self._carry["complete_ns"]):
            parts.append(results.raw_bins(self._carry, self._bin_ns))
        if not parts:
            parts.append(
                results.raw_bins(
                    dict.fromkeys(("arrival_ns", "complete_ns", "op", "size"), []), self._bin_ns
                )
            )
        joined = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        return results.finish_bins(joined, self._bin_ns)


class _Job:
    """``fn(*args)`` on a thread of its own; :meth:`result` waits for it and
    raises what it raised. (A thread per row group, ~20 of them per million
    rows, instead of ``concurrent.futures``, whose import, with
    ``logging``'s, took ~7 ms before every run.)"""

    def __init__(self, fn: Callable[..., None], *args: Any, daemon: bool = False) -> None:
        self._error: BaseException | None = None

        def run() -> None:
            try:
                fn(*args)
            except BaseException as e:  # re-raised by result()
                self._error = e

        self._thread = threading.Thread(target=run, name="flashsched-records", daemon=daemon)
        self._thread.start()

    def running(self) -> bool:
        """Whether ``fn`` has not returned yet."""
        return self._thread.is_alive()

    def result(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise self._error


def start_imports() -> _Job:
    """Import what writing rows needs on a thread (a daemon: a process that
    ends before the first row group need not wait for it)."""
    return _Job(_import_for_writing, daemon=True)


def _import_for_writing() -> None:
    import pyarrow.parquet  # noqa: F401

    import flashsched.results  # noqa: F401
