//! Real-device replay and the size–latency probe (`flashsched-replay`):
//! the same workloads and host schedulers on a file or block device. The
//! run is driven in short slices with the GIL released, and Ctrl-C between
//! slices stops it cleanly (in-flight I/O is waited for).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use flashsched_replay::probe::{self as core_probe, ProbeSpec};
use flashsched_replay::{
    BackendKind, Replay as CoreReplay, ReplayError as CoreError, ReplaySpec, TargetSpec,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::column::{records_dict, timeseries_dict, Column, ColumnData};
use crate::errors::{guarded, locked, poisoned, to_py, ConfigError, FlashschedError};
use crate::single::workload_spec;

pyo3::create_exception!(
    flashsched,
    ReplayError,
    FlashschedError,
    "A real-device replay or probe failed (I/O error, backend unavailable)."
);
pyo3::create_exception!(
    flashsched,
    UnsafeTargetError,
    ReplayError,
    "The safety rules refused the target or a request (mounted device, write without allow_write)."
);
pyo3::create_exception!(
    flashsched,
    VerifyError,
    ReplayError,
    "verify: a read returned data other than the version it had to see."
);

fn err(e: CoreError) -> PyErr {
    let msg = e.to_string();
    match e {
        CoreError::Sim(s) => to_py(s),
        CoreError::Unsafe(_) => UnsafeTargetError::new_err(msg),
        CoreError::Verify(_) => VerifyError::new_err(msg),
        CoreError::Invalid(_) => ConfigError::new_err(msg),
        CoreError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            pyo3::exceptions::PyFileNotFoundError::new_err(msg)
        }
        CoreError::Io { .. } | CoreError::Unavailable(_) => ReplayError::new_err(msg),
    }
}

fn backend(name: &str) -> PyResult<BackendKind> {
    BackendKind::from_name(name).map_err(err)
}

/// A replay on a real file or block device.
#[pyclass(module = "flashsched._core")]
pub(crate) struct Replay {
    inner: Mutex<CoreReplay>,
}

#[pymethods]
impl Replay {
    /// Open the target (every safety check), build workload and host
    /// scheduler, prefill/stamp the window. Give one of `trace`/`synthetic`.
    #[new]
    #[pyo3(signature = (target, offset=0, size=0, allow_write=false, align=0, device="default", overrides=Vec::new(), trace=None, format="auto", intensity=1.0, limit=None, synthetic=None, seed=42, keep_records=true, verify=false, prefill=None, backend="auto", skip_bad=false, time_order="auto"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        target: PathBuf,
        offset: u64,
        size: u64,
        allow_write: bool,
        align: u32,
        device: &str,
        overrides: Vec<String>,
        trace: Option<PathBuf>,
        format: &str,
        intensity: f64,
        limit: Option<u64>,
        synthetic: Option<String>,
        seed: u64,
        keep_records: bool,
        verify: bool,
        prefill: Option<bool>,
        backend: &str,
        skip_bad: bool,
        time_order: &str,
    ) -> PyResult<Self> {
        let workload = workload_spec(
            trace, synthetic, format, intensity, limit, skip_bad, time_order,
        )?;
        let spec = ReplaySpec {
            target: TargetSpec {
                path: target,
                offset,
                size,
                allow_write,
                align,
            },
            device: device.to_string(),
            overrides,
            workload,
            seed,
            keep_records,
            verify,
            prefill,
            backend: self::backend(backend)?,
        };
        let r = py.detach(|| guarded(|| CoreReplay::new(spec).map_err(err)))?;
        Ok(Replay {
            inner: Mutex::new(r),
        })
    }

    /// Run for up to `seconds` of wall time (GIL released); True when over.
    fn advance(&self, py: Python<'_>, seconds: f64) -> PyResult<bool> {
        let d = Duration::from_secs_f64(seconds.clamp(0.0, 3600.0));
        py.detach(|| locked(&self.inner, |r| r.advance(d).map_err(err)))
    }

    /// Run to the end; Ctrl-C stops cleanly (then raises KeyboardInterrupt;
    /// the summary covers what was done).
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        while !self.advance(py, 0.1)? {
            if let Err(e) = py.check_signals() {
                self.interrupt(py)?;
                return Err(e);
            }
        }
        Ok(())
    }

    /// Stop issuing; wait for what is in flight.
    fn interrupt(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| locked(&self.inner, |r| r.interrupt().map_err(err)))
    }

    /// (completed requests, expected total or None, wall ns since start).
    fn progress(&self) -> PyResult<(u64, Option<u64>, u64)> {
        Ok(self.inner.lock().map_err(poisoned)?.progress())
    }

    fn is_finished(&self) -> PyResult<bool> {
        Ok(self.inner.lock().map_err(poisoned)?.is_finished())
    }

    /// The summary as JSON (the simulator's keys plus `replay`); `stable`
    /// is accepted for symmetry with `Simulation` (a real run never repeats).
    #[pyo3(signature = (stable=false))]
    fn summary_json(&self, stable: bool) -> PyResult<String> {
        let _ = stable;
        locked(&self.inner, |r| Ok(r.summary_json()))
    }

    /// The simulator's check mode does not exist here (its real-device
    /// counterpart, `verify`, reports in the summary's `replay.verify`).
    fn check_counts(&self) -> Option<Py<PyDict>> {
        None
    }

    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        records_dict(py, self.inner.lock().map_err(poisoned)?.metrics_mut())
    }

    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        timeseries_dict(py, self.inner.lock().map_err(poisoned)?.metrics())
    }

    /// A real device's erase counts are not visible: always empty.
    fn erase_counts(&self) -> Column {
        Column::new(ColumnData::U32(Arc::new(Vec::new())))
    }

    /// The device config whose `[host]` section drove the replay.
    fn config_toml(&self) -> PyResult<String> {
        Ok(self.inner.lock().map_err(poisoned)?.config_toml())
    }

    /// `io_uring` or `threads` (the fallback).
    fn backend_name(&self) -> PyResult<&'static str> {
        Ok(self.inner.lock().map_err(poisoned)?.backend_name())
    }
}

/// The size–latency probe; returns its result as JSON text.
#[pyfunction]
#[pyo3(signature = (target, sizes, offset=0, size=0, allow_write=false, align=0, per_size=200, writes=true, prefill=None, backend="auto", seed=42))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn probe(
    py: Python<'_>,
    target: PathBuf,
    sizes: Vec<u32>,
    offset: u64,
    size: u64,
    allow_write: bool,
    align: u32,
    per_size: u32,
    writes: bool,
    prefill: Option<bool>,
    backend: &str,
    seed: u64,
) -> PyResult<String> {
    let spec = ProbeSpec {
        target: TargetSpec {
            path: target,
            offset,
            size,
            allow_write,
            align,
        },
        sizes,
        per_size,
        writes,
        prefill,
        backend: self::backend(backend)?,
        seed,
    };
    let r = py.detach(|| guarded(|| core_probe::probe(&spec).map_err(err)))?;
    serde_json::to_string_pretty(&r).map_err(|e| ReplayError::new_err(e.to_string()))
}

/// None when io_uring can be set up here, else the reason it cannot.
#[pyfunction]
pub(crate) fn uring_unavailable() -> Option<String> {
    flashsched_replay::backend::uring_available().err()
}
