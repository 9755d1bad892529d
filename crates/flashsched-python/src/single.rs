//! One simulated SSD.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use flashsched_core::metrics::Records;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::sim::Simulation as CoreSim;
use flashsched_core::workload::replay::check_intensity;
use flashsched_core::workload::trace::{TimeOrder, TraceOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::column::{records_dict, rows_dict, timeseries_dict, Column, ColumnData};
use crate::driven;
use crate::errors::{guarded, memory_limit, poisoned, to_py, ConfigError, SimulationError};

/// The workload of the `trace`/`synthetic` arguments (exactly one given),
/// as `Simulation` and `Replay` take them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn workload_spec(
    trace: Option<PathBuf>,
    synthetic: Option<String>,
    format: &str,
    intensity: f64,
    limit: Option<u64>,
    skip_bad: bool,
    time_order: &str,
) -> PyResult<WorkloadSpec> {
    check_intensity(intensity).map_err(to_py)?;
    match (trace, synthetic) {
        (Some(path), None) => Ok(WorkloadSpec::Trace {
            path,
            format: format.to_string(),
            intensity,
            limit,
            options: TraceOptions {
                skip_bad,
                time_order: TimeOrder::from_name(time_order).map_err(to_py)?,
            },
        }),
        (None, Some(s)) => Ok(WorkloadSpec::Synthetic(s)),
        _ => Err(ConfigError::new_err(
            "give exactly one of `trace` or `synthetic`",
        )),
    }
}

/// A configured simulation of one SSD.
#[pyclass(module = "flashsched._core")]
pub(crate) struct Simulation {
    inner: Mutex<CoreSim>,
    /// Row buffers `take_records` gave out, recorded into again.
    given: Mutex<GivenRows>,
}

/// The row buffers `take_records` gave out last, recorded into again once
/// Python has let go of them (written and dropped by the record writer):
/// fresh buffers per row group cost a page fault per 4 KiB and a growth by
/// doubling (a 1M-row take loop: 25.8k -> 13.1k page faults; BENCHMARKS.md,
/// session 49).
#[derive(Default)]
struct GivenRows {
    /// Oldest first, at most `GivenRows::KEPT`, each sharing its columns
    /// with what Python was given.
    sets: VecDeque<Records>,
    /// Rows of the last take (the room a fresh set gets).
    last: usize,
}

impl GivenRows {
    /// Sets kept: the one the writer has and the one before it. With the
    /// core's own that is three sets, as the estimate counts
    /// (`records_stream.ROWS_HELD`).
    const KEPT: usize = 2;

    /// Buffers to record into next: a set nothing else holds any more, or
    /// fresh ones with room for as many rows as the last take.
    fn spare(&mut self) -> Records {
        let set = self.sets.iter().position(Records::unshared);
        set.and_then(|i| self.sets.remove(i))
            .unwrap_or_else(|| Records::with_capacity(self.last))
    }

    /// Keep `rows`, just given out, to record into again later.
    fn keep(&mut self, rows: Records) {
        self.last = rows.len();
        self.sets.push_back(rows);
        while self.sets.len() > Self::KEPT {
            self.sets.pop_front();
        }
    }
}

#[pymethods]
impl Simulation {
    /// Build a simulation. Give exactly one of `trace` or `synthetic`.
    #[new]
    #[pyo3(signature = (device="default", overrides=Vec::new(), trace=None, format="auto", intensity=1.0, limit=None, synthetic=None, seed=42, keep_records=true, check=false, skip_bad=false, time_order="auto", max_memory=None, records_held=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        device: &str,
        overrides: Vec<String>,
        trace: Option<PathBuf>,
        format: &str,
        intensity: f64,
        limit: Option<u64>,
        synthetic: Option<String>,
        seed: u64,
        keep_records: bool,
        check: bool,
        skip_bad: bool,
        time_order: &str,
        max_memory: Option<String>,
        records_held: Option<u64>,
    ) -> PyResult<Self> {
        let mem_limit = memory_limit(max_memory.as_deref())?;
        let workload = workload_spec(
            trace, synthetic, format, intensity, limit, skip_bad, time_order,
        )?;
        let spec = RunSpec {
            device: device.to_string(),
            overrides,
            workload,
            seed,
            keep_records,
        };
        let sim = py.detach(|| {
            guarded(|| run::build_streaming(&spec, check, mem_limit, records_held).map_err(to_py))
        })?;
        Ok(Simulation {
            inner: Mutex::new(sim),
            given: Mutex::default(),
        })
    }

    /// Run up to `max_steps` event time steps; returns True when finished.
    fn advance(&self, py: Python<'_>, max_steps: u64) -> PyResult<bool> {
        driven::advance(py, &self.inner, max_steps)
    }

    /// Run until `completed` requests have completed (or up to `max_steps`
    /// event time steps, or the end); returns True when finished.
    #[pyo3(signature = (completed, max_steps=u64::MAX))]
    fn advance_until(&self, py: Python<'_>, completed: u64, max_steps: u64) -> PyResult<bool> {
        driven::advance_until(py, &self.inner, completed, max_steps)
    }

    /// Run to completion.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        driven::run(py, &self.inner)
    }

    /// (completed requests, expected total or None, simulated ns).
    fn progress(&self) -> PyResult<(u64, Option<u64>, u64)> {
        driven::progress(&self.inner)
    }

    fn is_finished(&self) -> PyResult<bool> {
        Ok(self.inner.lock().map_err(poisoned)?.is_finished())
    }

    /// Summary as JSON text (`stable` zeroes wall-clock fields).
    #[pyo3(signature = (stable=false))]
    fn summary_json(&self, stable: bool) -> PyResult<String> {
        driven::summary_json(&self.inner, stable)
    }

    /// What check mode verified: {records, page_reads_verified, audits,
    /// pages_audited} (summed over SSDs), or None when it was off.
    fn check_counts<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        driven::check_counts(py, &self.inner)
    }

    /// Per-request columns, shared with the core without a copy:
    /// {name: Column} (pass each to `numpy.asarray`).
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        records_dict(py, &mut self.inner.lock().map_err(poisoned)?.metrics)
    }

    /// The per-request columns recorded since the last call, leaving none
    /// held (to stream a long run's rows out in pieces; build with
    /// `records_held`): {name: Column}.
    fn take_records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut given = self.given.lock().map_err(poisoned)?;
        let spare = given.spare();
        let mut rows = self.inner.lock().map_err(poisoned)?.swap_records(spare);
        // Shared now: the set kept holds the columns Python is given.
        let d = rows_dict(py, &mut rows)?;
        given.keep(rows);
        Ok(d)
    }

    /// The earliest completion time (ns) a row recorded from now on can
    /// have: rows of a time bin that ends by then are all recorded.
    fn completion_floor(&self) -> PyResult<u64> {
        Ok(self.inner.lock().map_err(poisoned)?.completion_floor())
    }

    /// Per-second series over the seconds in which something completed
    /// (idle seconds are absent; `second` says which second each row is):
    /// {second, ios, reads, writes, bytes, mean_latency_us, p99_latency_us}.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        timeseries_dict(py, &self.inner.lock().map_err(poisoned)?.metrics)
    }

    /// Erase count of every block (global block order).
    fn erase_counts(&self) -> PyResult<Column> {
        let s = self.inner.lock().map_err(poisoned)?;
        let counts = s.ssd.ftl.erase_counts().to_vec();
        Ok(Column::new(ColumnData::U32(Arc::new(counts))))
    }

    /// The device configuration this run uses, as TOML.
    fn config_toml(&self) -> PyResult<String> {
        Ok(self.inner.lock().map_err(poisoned)?.cfg.to_toml())
    }

    /// Check FTL accounting invariants; raises SimulationError if broken.
    fn check_invariants(&self) -> PyResult<()> {
        let s = self.inner.lock().map_err(poisoned)?;
        s.ssd
            .ftl
            .check_invariants()
            .map_err(SimulationError::new_err)
    }
}
