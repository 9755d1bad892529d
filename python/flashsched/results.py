"""Results of one run: the summary dict plus pandas DataFrames, and exports
(Parquet for per-request rows, JSON/CSV for the rest).

numpy and pandas are imported on first use of a DataFrame, so ``flashsched
run`` printing a summary never loads them (BENCHMARKS.md, "Start-up").
"""

from __future__ import annotations

import html
import json
import shutil
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flashsched import _core
from flashsched import summary as summaries

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    from flashsched.records_stream import RecordStream

OPS = ("read", "write", "trim")
#: The core's per-request columns, in its order, and their dtypes.
ROW_DTYPES = {
    "arrival_ns": "uint64",
    "dispatch_ns": "uint64",
    "complete_ns": "uint64",
    "op": "uint8",
    "offset": "uint64",
    "size": "uint32",
    "stream": "uint32",
}
MIB = float(1 << 20)


@dataclass(repr=False)
class RunResult:
    """Everything a run produced. ``summary`` holds the JSON summary keys."""

    summary: dict[str, Any]
    config_toml: str
    _records: dict[str, _core.Column] = field(repr=False)
    _timeseries: dict[str, _core.Column] = field(repr=False)
    _erase_counts: _core.Column | None = field(repr=False, default=None)
    #: width of the time-series bins (ms); 1000 = the core's per-second series
    bin_ms: float = 1000.0
    #: the Parquet file the run streamed its per-request rows to, if it did
    requests_file: Path | None = None
    #: the series at ``bin_ms``, when computed as the rows streamed past
    _binned: pd.DataFrame | None = field(repr=False, default=None)

    @classmethod
    def from_sim(
        cls,
        sim: _core.Simulation,
        bin_ms: float = 1000.0,
        stream: RecordStream | None = None,
    ) -> RunResult:
        """The results of a finished run; ``stream`` is where its rows went
        if it streamed them (``records_to``)."""
        return cls(
            summary=summaries.from_sim(sim),
            config_toml=sim.config_toml(),
            _records={} if stream else sim.records(),
            _timeseries=sim.timeseries(),
            _erase_counts=sim.erase_counts(),
            bin_ms=bin_ms,
            requests_file=stream.path if stream else None,
            _binned=stream.series() if stream else None,
        )

    @property
    def erase_counts(self) -> np.ndarray:
        """Erase count of every block (global block order)."""
        import numpy as np

        if self._erase_counts is None:
            return np.zeros(0, np.uint32)
        return np.asarray(self._erase_counts)

    @property
    def has_records(self) -> bool:
        if self.requests_file is not None:
            return True
        return bool(self._records) and len(next(iter(self._records.values()))) > 0

    @cached_property
    def requests(self) -> pd.DataFrame:
        """One row per completed request (empty if records were not kept).

        Built once, on first access, as read-only views of the columns the
        core filled (no copy); later accesses return the same DataFrame. A
        run that streamed its rows to a file (``records_to``) reads them
        back from it (all of them, into memory).
        """
        if self.requests_file is not None:
            import pandas as pd

            return pd.read_parquet(self.requests_file)
        return frame(self._records)

    @property
    def timeseries(self) -> pd.DataFrame:
        """IOPS, bandwidth (MiB/s) and latency per bin of ``bin_ms`` (by
        completion time): time_s (bin start), ios, reads, writes, bytes,
        iops, mib_s, mean_latency_us, p99_latency_us.

        The core stores only the seconds in which something completed, so
        idle simulated time costs it nothing; here, as in :meth:`series`,
        idle bins are rows of zero counts and NaN latencies, unless the run
        spans more than 10 million bins: then only the bins with completions
        are listed (a bin without a row was idle)."""
        if self._binned is not None:
            return self._binned
        if self.bin_ms != 1000.0:
            return self.series(self.bin_ms)
        import pandas as pd

        return pd.DataFrame(self._per_second())

    def _per_second(self) -> dict[str, np.ndarray]:
        """The core's per-second series as columns (:meth:`timeseries`)."""
        raw = dict(self._timeseries)
        raw["bin"] = raw.pop("second")
        return series_columns(raw, 1.0, None)

    def series(self, bin_ms: float) -> pd.DataFrame:
        """The time series at any bin width, from the per-request records
        (run with ``keep_records=True``). Bins with no completion have zero
        counts and NaN latencies; a series spanning more than 10 million bins
        lists only the bins with completions."""
        if not self.has_records:
            raise _value_error("series(bin_ms) needs per-request records (keep_records=True)")
        if self.requests_file is not None:
            import pandas as pd

            cols = ["arrival_ns", "complete_ns", "size"]
            df = pd.read_parquet(self.requests_file, columns=[*cols, "op"])
            rows = {c: df[c].to_numpy() for c in cols}
            return binned({**rows, "op": df["op"].cat.codes.to_numpy()}, bin_ms)
        return binned(self._records, bin_ms)

    def latency(self, kind: str = "all") -> dict[str, float]:
        """Latency statistics in microseconds: kind is all, read or write."""
        key = {"all": "latency_us", "read": "read_latency_us", "write": "write_latency_us"}[kind]
        return dict(self.summary[key])

    def save(self, out: str | Path) -> Path:
        """Write summary.json, timeseries.csv, config.toml and requests.parquet."""
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        (d / "summary.json").write_text(json.dumps(self.summary, indent=2))
        (d / "config.toml").write_text(self.config_toml)
        if self._binned is None and self.bin_ms == 1000.0:
            # The core's series, written without loading pandas (~0.2 s).
            write_csv(d / "timeseries.csv", self._per_second())
        else:
            self.timeseries.to_csv(d / "timeseries.csv", index=False)
        target = d / "requests.parquet"
        if self.requests_file is not None:
            if target.resolve() != self.requests_file.resolve():
                shutil.copyfile(self.requests_file, target)
        elif self.has_records:
            from flashsched.records_stream import PARQUET_OPTIONS

            self.requests.to_parquet(target, index=False, **PARQUET_OPTIONS)
        return d

    # -- display ------------------------------------------------------------

    def _headline(self) -> list[tuple[str, str]]:
        s = self.summary
        lat = s["latency_us"]
        return [
            ("device", str(s["device"])),
            ("host_sched / device_sched", f"{s['host_sched']} / {s['device_sched']}"),
            ("workload", str(s["workload"])),
            ("requests", f"{s['requests']:,}"),
            ("simulated", f"{s['simulated_s']:.3f} s"),
            ("IOPS", f"{s['iops']:,.0f}"),
            ("bandwidth", f"{s['bandwidth_mib_s']:,.1f} MiB/s"),
            ("latency mean / p99", f"{lat['mean']:,.1f} / {lat['p99']:,.1f} µs"),
            ("WAF", f"{s['waf']:.3f}"),
            ("check", "on" if s.get("check", {}).get("enabled") else "off"),
        ]

    def __repr__(self) -> str:
        s = self.summary
        lat = s["latency_us"]
        return (
            f"<RunResult {s['device']} {s['host_sched']}/{s['device_sched']}: "
            f"{s['requests']:,} requests, mean {lat['mean']:.1f} µs, p99 {lat['p99']:.1f} µs, "
            f"{s['bandwidth_mib_s']:.1f} MiB/s>"
        )

    def _repr_html_(self) -> str:
        return _html_table("RunResult", self._headline())


def _row_columns(records: dict[str, Any]) -> dict[str, np.ndarray]:
    """The core's per-request columns as numpy views (no copy), ``op`` as
    its codes (indices into :data:`OPS`) after ``complete_ns``, with
    ``latency_us`` and ``wait_us`` derived."""
    import numpy as np

    if records:
        # Derived in the core: (t - arrival) / 1000 in plain memory (numpy
        # would ask for huge pages, slow to touch first on some kernels).
        arrival = records["arrival_ns"]
        latency = np.asarray(_core.us_since(records["complete_ns"], arrival))
        wait = np.asarray(_core.us_since(records["dispatch_ns"], arrival))
    else:  # no rows at all (a stream closed before any): the columns, empty
        records = {name: np.zeros(0, dtype) for name, dtype in ROW_DTYPES.items()}
        latency = wait = np.zeros(0)
    cols = {name: np.asarray(col) for name, col in records.items()}
    op = cols.pop("op")
    data: dict[str, np.ndarray] = {}
    for name, col in cols.items():
        data[name] = col
        if name == "complete_ns":
            data["op"] = op
    data["latency_us"] = latency
    data["wait_us"] = wait
    return data


def frame(records: dict[str, Any]) -> pd.DataFrame:
    """Per-request columns from the core as a DataFrame: the columns as
    read-only views (no copy), ``op`` as a categorical of :data:`OPS`, and
    ``latency_us`` / ``wait_us`` derived."""
    import pandas as pd

    data: dict[str, Any] = _row_columns(records)
    # Op codes index OPS directly (no per-row strings to factorise).
    data["op"] = pd.Categorical.from_codes(data["op"], categories=list(OPS))
    # All columns at once: adding them one by one copies each.
    return pd.DataFrame(data, copy=False)


def arrow_rows(records: dict[str, Any]) -> pa.Table:
    """The rows of :func:`frame` as an Arrow table (what the Parquet file of
    a streamed run holds), ``op`` as a dictionary of :data:`OPS` as the
    categorical converts to. Arrays are made from the columns' buffers (no
    copy): pyarrow's converters would import pandas (~0.2 s) to ask whether
    the data is a DataFrame."""
    import numpy as np
    import pyarrow as pa

    def column(a: np.ndarray) -> pa.Array:
        a = np.ascontiguousarray(a)
        return pa.Array.from_buffers(pa.from_numpy_dtype(a.dtype), len(a), [None, pa.py_buffer(a)])

    words = "".join(OPS).encode()
    ends = np.cumsum([0, *(len(op) for op in OPS)], dtype=np.int32)
    names = pa.Array.from_buffers(
        pa.string(), len(OPS), [None, pa.py_buffer(ends), pa.py_buffer(words)]
    )
    data = _row_columns(records)
    arrays = {k: column(v) for k, v in data.items() if k != "op"}
    codes = column(data["op"].astype(np.int8))
    arrays["op"] = pa.DictionaryArray.from_arrays(codes, names)
    return pa.Table.from_arrays([arrays[k] for k in data], names=list(data))


def _value_error(msg: str) -> Exception:
    from flashsched.exceptions import ArgumentValueError

    return ArgumentValueError(msg)


def _html_table(title: str, rows: list[tuple[str, str]]) -> str:
    cells = "".join(
        f"<tr><th style='text-align:left'>{html.escape(k)}</th>"
        f"<td style='text-align:left'>{html.escape(v)}</td></tr>"
        for k, v in rows
    )
    return f"<table><caption><b>{html.escape(title)}</b></caption>{cells}</table>"


MAX_DENSE_BINS = 10_000_000
#: Per-bin counts: integers, 0 in an idle bin (other columns: NaN).
COUNTS = ("ios", "reads", "writes", "bytes")


def series_columns(raw: dict[str, Any], bin_s: float, scale: float | None) -> dict[str, np.ndarray]:
    """Per-bin sums listed only for the bins in column ``bin`` (ascending)
    as the series' columns: every bin from 0 to the last, idle ones with
    zero counts and NaN latencies, when there are fewer than
    :data:`MAX_DENSE_BINS` (else as listed); ``time_s``, the bin's start
    (``bin × scale``, or the bin itself when ``scale`` is None); rates per
    second of bins ``bin_s`` wide. Columns: time_s, ios, reads, writes,
    bytes, iops, mib_s, then the rest of ``raw``'s."""
    import numpy as np

    cols = {k: np.asarray(v) for k, v in raw.items()}
    b = cols.pop("bin").astype(np.int64)
    n = len(b)
    if n and b[-1] < MAX_DENSE_BINS and b[-1] + 1 != n:
        full = int(b[-1]) + 1
        for k, v in cols.items():
            dense = np.zeros(full, np.int64) if k in COUNTS else np.full(full, np.nan)
            dense[b] = v
            cols[k] = dense
        b = np.arange(full, dtype=np.int64)
    for k in COUNTS:
        cols[k] = cols[k].astype(np.int64)
    mean = cols["mean_latency_us"].astype(np.float64)
    mean[cols["ios"] == 0] = np.nan
    cols["mean_latency_us"] = mean
    out = {"time_s": b if scale is None else b * scale}
    out.update({k: cols[k] for k in COUNTS})
    out["iops"] = cols["ios"] / bin_s
    out["mib_s"] = cols["bytes"] / MIB / bin_s
    out.update({k: v for k, v in cols.items() if k not in out})
    return out


#: Rows of a CSV formatted at a time (:func:`write_csv`).
CSV_ROWS = 1 << 16


def write_csv(path: Path, cols: dict[str, np.ndarray]) -> None:
    """``cols`` (integer and float columns) as CSV, exactly as pandas'
    ``to_csv(index=False)`` writes them: integers as such, floats as their
    shortest repr, NaN as an empty field. Formatted by the core (a series
    of 26k rows took ~45 ms in Python, at the end of every such run)."""
    import numpy as np

    arrays = []
    for name, c in cols.items():
        a = np.asarray(c)
        if a.dtype.kind == "f":
            arrays.append(("<f8", a))
        elif a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize < 8):
            arrays.append(("<i8", a))
        else:
            raise TypeError(f"write_csv: column {name!r} is {a.dtype}, not integer or float")
    rows = len(arrays[0][1]) if arrays else 0
    # In pieces: a run of years has millions of seconds, and its whole
    # text, as a string and then as bytes, took hundreds of MB at once.
    with path.open("w") as f:
        for lo in range(0, max(rows, 1), CSV_ROWS):
            parts = [(k, a[lo : lo + CSV_ROWS].astype(k).tobytes()) for k, a in arrays]
            text = _core.numeric_csv(list(cols), parts)
            f.write(text if lo == 0 else text.split("\n", 1)[1])


def binned(records: dict[str, Any], bin_ms: float) -> pd.DataFrame:
    """Per-bin counts, bandwidth and latency (mean; p99 by nearest rank over
    reads and writes, as the core's per-second series) from per-request
    columns."""
    bin_ns = bin_width_ns(bin_ms)
    return finish_bins(raw_bins(records, bin_ns), bin_ns)


def bin_width_ns(bin_ms: float) -> int:
    """``bin_ms`` checked and in whole nanoseconds."""
    from flashsched import arguments

    bin_ns = int(round(arguments.number("bin_ms", bin_ms, positive=True) * 1e6))
    if bin_ns < 1:
        raise _value_error(f"bin_ms: {bin_ms} is below one nanosecond")
    return bin_ns


def raw_bins(records: dict[str, Any], bin_ns: int) -> dict[str, np.ndarray]:
    """Per-bin sums of the rows in ``records``, only the bins they touch:
    bin, ios, reads, writes, bytes, mean_latency_us, p99_latency_us."""
    import numpy as np

    complete = np.asarray(records["complete_ns"]).astype(np.int64)
    arrival = np.asarray(records["arrival_ns"]).astype(np.int64)
    op = np.asarray(records["op"])
    size = np.asarray(records["size"]).astype(np.float64)
    lat = (complete - arrival) / 1e3
    bins, inv = np.unique(complete // bin_ns, return_inverse=True)
    n = len(bins)
    ios = np.bincount(inv, minlength=n)
    return {
        "bin": bins,
        "ios": ios,
        "reads": np.bincount(inv, weights=op == 0, minlength=n).astype(np.int64),
        "writes": np.bincount(inv, weights=op == 1, minlength=n).astype(np.int64),
        "bytes": np.bincount(inv, weights=size, minlength=n).astype(np.int64),
        "mean_latency_us": np.bincount(inv, weights=lat, minlength=n) / np.maximum(ios, 1),
        "p99_latency_us": _p99_per_bin(inv[op != 2], lat[op != 2], n),
    }


def finish_bins(raw: dict[str, np.ndarray], bin_ns: int) -> pd.DataFrame:
    """Raw bins (:func:`raw_bins`) as the series: idle bins filled, the
    start time in seconds, rates per second."""
    import pandas as pd

    return pd.DataFrame(series_columns(raw, bin_ns / 1e9, bin_ns / 1e9))


def _p99_per_bin(inv: np.ndarray, lat: np.ndarray, n: int) -> np.ndarray:
    import numpy as np

    out = np.full(n, np.nan)
    if len(lat) == 0:
        return out
    order = np.lexsort((lat, inv))
    g, lat_sorted = inv[order], lat[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    counts = np.diff(np.r_[starts, len(g)])
    rank = np.clip(np.ceil(0.99 * counts).astype(np.int64), 1, counts) - 1
    out[g[starts]] = lat_sorted[starts + rank]
    return out
