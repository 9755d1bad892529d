//! PyO3 bindings: a thin layer over `flashsched-core`. Every core error
//! becomes a Python exception; nothing here panics across the boundary, and
//! simulation work runs with the GIL released.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use flashsched_core::array::network::LinkConfig;
use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::config::DeviceConfig;
use flashsched_core::error::SimError;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::sim::Simulation as CoreSim;
use flashsched_core::workload::trace::{
    detect_format as core_detect, open_trace_with, TimeOrder, TraceFormat, TraceOptions,
};
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyIndexError, PyRuntimeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

pyo3::create_exception!(
    flashsched,
    FlashschedError,
    PyException,
    "Base class of flashsched errors."
);
pyo3::create_exception!(
    flashsched,
    ConfigError,
    FlashschedError,
    "Unknown key, bad value or unknown name."
);
pyo3::create_exception!(
    flashsched,
    TraceError,
    FlashschedError,
    "A trace file could not be parsed (file:line)."
);
pyo3::create_exception!(
    flashsched,
    SimulationError,
    FlashschedError,
    "The simulation reached an invalid state."
);

fn to_py(e: SimError) -> PyErr {
    let msg = e.to_string();
    match e {
        SimError::Config { .. } | SimError::UnknownName { .. } => ConfigError::new_err(msg),
        SimError::Trace { .. } => TraceError::new_err(msg),
        SimError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        SimError::Io { .. } => TraceError::new_err(msg),
        SimError::Invalid(_) => SimulationError::new_err(msg),
    }
}

/// Run a binding body; a panic in the core (a bug) becomes a
/// `SimulationError` instead of crossing into Python. A simulation whose
/// lock was held by the panicking call is poisoned and refuses further use.
fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(SimulationError::new_err(
            flashsched_core::error::panic_message(payload.as_ref()),
        ))
    })
}

fn poisoned<T>(_: T) -> PyErr {
    PyRuntimeError::new_err("simulation state is unusable after an earlier panic")
}

/// Run `f` on the simulation behind `m`, [`guarded`].
fn locked<S, T>(m: &Mutex<S>, f: impl FnOnce(&mut S) -> PyResult<T>) -> PyResult<T> {
    guarded(|| f(&mut *m.lock().map_err(poisoned)?))
}

/// One per-request column handed to numpy without a copy: it holds the
/// core's shared column (whose contents never change once shared; see
/// `metrics::Column`) and describes it through numpy's array interface
/// (version 3), which also works under the stable ABI. `numpy.asarray`
/// gives a read-only array whose `base` keeps this object alive.
#[pyclass(module = "flashsched._core", frozen)]
struct Column {
    data: ColumnData,
}

/// What `Column.__reduce__` returns: the constructor and its arguments.
type Reduced<'py> = (Bound<'py, PyAny>, (&'static str, Bound<'py, PyBytes>));

enum ColumnData {
    U64(Arc<Vec<u64>>),
    U32(Arc<Vec<u32>>),
    U8(Arc<Vec<u8>>),
    /// Derived columns (`us_since`).
    F64(Arc<Vec<f64>>),
}

impl Column {
    fn new(data: ColumnData) -> Column {
        Column { data }
    }

    /// (address, rows, numpy type string)
    fn raw(&self) -> (usize, usize, &'static str) {
        // The memory is in the host's byte order.
        let big = cfg!(target_endian = "big");
        match &self.data {
            ColumnData::U64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">u8" } else { "<u8" },
            ),
            ColumnData::U32(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">u4" } else { "<u4" },
            ),
            ColumnData::U8(v) => (v.as_ptr() as usize, v.len(), "|u1"),
            ColumnData::F64(v) => (
                v.as_ptr() as usize,
                v.len(),
                if big { ">f8" } else { "<f8" },
            ),
        }
    }

    fn u64s(&self) -> Option<&[u64]> {
        match &self.data {
            ColumnData::U64(v) => Some(v),
            _ => None,
        }
    }
}

#[pymethods]
impl Column {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (addr, rows, typestr) = self.raw();
        let d = PyDict::new(py);
        d.set_item("shape", (rows,))?;
        d.set_item("typestr", typestr)?;
        d.set_item("data", (addr, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }

    fn __len__(&self) -> usize {
        self.raw().1
    }

    /// Row `i` (negative counts from the end); makes a column iterable.
    fn __getitem__<'py>(&self, py: Python<'py>, i: isize) -> PyResult<Bound<'py, PyAny>> {
        let n = self.raw().1 as isize;
        let j = if i < 0 { i + n } else { i };
        if !(0..n).contains(&j) {
            return Err(PyIndexError::new_err(format!(
                "row {i} of a {n}-row column"
            )));
        }
        let j = j as usize;
        Ok(match &self.data {
            ColumnData::U64(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::U32(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::U8(v) => v[j].into_pyobject(py)?.into_any(),
            ColumnData::F64(v) => v[j].into_pyobject(py)?.into_any(),
        })
    }

    /// Pickle support: (Column._from_bytes, (type string, little-endian bytes)).
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Reduced<'py>> {
        let py = slf.py();
        // Pickled bytes are little-endian whatever the host.
        let (typestr, bytes) = match &slf.get().data {
            ColumnData::U64(v) => ("<u8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ColumnData::U32(v) => ("<u4", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
            ColumnData::U8(v) => ("|u1", v.to_vec()),
            ColumnData::F64(v) => ("<f8", v.iter().flat_map(|x| x.to_le_bytes()).collect()),
        };
        let ctor = py.get_type::<Column>().getattr("_from_bytes")?;
        Ok((ctor, (typestr, PyBytes::new(py, &bytes))))
    }

    /// Rebuild a pickled column.
    #[staticmethod]
    fn _from_bytes(typestr: &str, data: &[u8]) -> PyResult<Column> {
        let bad =
            || PyValueError::new_err(format!("not a {typestr} column of {} bytes", data.len()));
        let data = match typestr {
            "<u8" if data.len().is_multiple_of(8) => ColumnData::U64(Arc::new(
                data.chunks_exact(8)
                    .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            "<u4" if data.len().is_multiple_of(4) => ColumnData::U32(Arc::new(
                data.chunks_exact(4)
                    .map(|c| u32::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            "|u1" => ColumnData::U8(Arc::new(data.to_vec())),
            "<f8" if data.len().is_multiple_of(8) => ColumnData::F64(Arc::new(
                data.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default()))
                    .collect(),
            )),
            _ => return Err(bad()),
        };
        Ok(Column::new(data))
    }
}

/// A configured simulation of one SSD.
#[pyclass(module = "flashsched._core")]
struct Simulation {
    inner: Mutex<CoreSim>,
}

#[pymethods]
impl Simulation {
    /// Build a simulation. Give exactly one of `trace` or `synthetic`.
    #[new]
    #[pyo3(signature = (device="default", overrides=Vec::new(), trace=None, format="auto", intensity=1.0, limit=None, synthetic=None, seed=42, keep_records=true, check=false, skip_bad=false, time_order="clamp"))]
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
    ) -> PyResult<Self> {
        if !(intensity.is_finite() && intensity > 0.0) {
            return Err(ConfigError::new_err(format!(
                "intensity: {intensity} must be > 0"
            )));
        }
        let workload = match (trace, synthetic) {
            (Some(path), None) => WorkloadSpec::Trace {
                path,
                format: format.to_string(),
                intensity,
                limit,
                options: TraceOptions {
                    skip_bad,
                    time_order: TimeOrder::from_name(time_order).map_err(to_py)?,
                },
            },
            (None, Some(s)) => WorkloadSpec::Synthetic(s),
            _ => {
                return Err(ConfigError::new_err(
                    "give exactly one of `trace` or `synthetic`",
                ))
            }
        };
        let spec = RunSpec {
            device: device.to_string(),
            overrides,
            workload,
            seed,
            keep_records,
        };
        let mut sim = py.detach(|| guarded(|| run::build(&spec).map_err(to_py)))?;
        if check {
            sim.enable_check();
        }
        Ok(Simulation {
            inner: Mutex::new(sim),
        })
    }

    /// Run up to `max_steps` event time steps; returns True when finished.
    fn advance(&self, py: Python<'_>, max_steps: u64) -> PyResult<bool> {
        py.detach(|| locked(&self.inner, |s| s.advance(max_steps).map_err(to_py)))
    }

    /// Run to completion.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| locked(&self.inner, |s| s.run().map_err(to_py)))
    }

    /// (completed requests, expected total or None, simulated ns).
    fn progress(&self) -> PyResult<(u64, Option<u64>, u64)> {
        let s = self.inner.lock().map_err(poisoned)?;
        let (done, total) = s.progress();
        Ok((done, total, s.now()))
    }

    fn is_finished(&self) -> PyResult<bool> {
        Ok(self.inner.lock().map_err(poisoned)?.is_finished())
    }

    /// Summary as JSON text (`stable` zeroes wall-clock fields).
    #[pyo3(signature = (stable=false))]
    fn summary_json(&self, stable: bool) -> PyResult<String> {
        locked(&self.inner, |s| Ok(s.summary().to_json(stable)))
    }

    /// Per-request columns, shared with the core without a copy:
    /// {name: Column} (pass each to `numpy.asarray`).
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.lock().map_err(poisoned)?;
        let r = &s.metrics.records;
        let d = PyDict::new(py);
        let u64s = [
            ("arrival_ns", &r.arrival),
            ("dispatch_ns", &r.dispatch),
            ("complete_ns", &r.complete),
        ];
        for (name, c) in u64s {
            d.set_item(name, Column::new(ColumnData::U64(c.share())))?;
        }
        d.set_item("op", Column::new(ColumnData::U8(r.op.share())))?;
        d.set_item("offset", Column::new(ColumnData::U64(r.offset.share())))?;
        d.set_item("size", Column::new(ColumnData::U32(r.size.share())))?;
        d.set_item("stream", Column::new(ColumnData::U32(r.stream.share())))?;
        Ok(d)
    }

    /// Per-second series: {second, ios, reads, writes, bytes, mean_latency_us, p99_latency_us}.
    fn timeseries<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.lock().map_err(poisoned)?;
        let m = &s.metrics;
        let d = PyDict::new(py);
        let secs = &m.seconds;
        d.set_item("second", (0..secs.len() as u64).collect::<Vec<_>>())?;
        d.set_item("ios", secs.iter().map(|x| x.ios).collect::<Vec<_>>())?;
        d.set_item("reads", secs.iter().map(|x| x.reads).collect::<Vec<_>>())?;
        d.set_item("writes", secs.iter().map(|x| x.writes).collect::<Vec<_>>())?;
        d.set_item("bytes", secs.iter().map(|x| x.bytes).collect::<Vec<_>>())?;
        d.set_item(
            "mean_latency_us",
            secs.iter()
                .map(|x| {
                    if x.ios == 0 {
                        0.0
                    } else {
                        x.latency_sum_ns as f64 / x.ios as f64 / 1000.0
                    }
                })
                .collect::<Vec<_>>(),
        )?;
        let mut p99: Vec<f64> = m.p99_per_second().into_iter().map(|v| v / 1000.0).collect();
        p99.resize(secs.len(), f64::NAN);
        d.set_item("p99_latency_us", p99)?;
        Ok(d)
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

/// A simulated SSD array (RAID-0/RAID-5/serial) behind an optional link.
#[pyclass(module = "flashsched._core")]
struct ArraySimulation {
    inner: Mutex<ArraySim>,
}

#[pymethods]
impl ArraySimulation {
    /// Build an array of `ssds` copies of `device`. Give `phases` (synthetic
    /// specs run in sequence) or `writers` = (clients, file bytes, bs, qd).
    #[new]
    #[pyo3(signature = (layout="raid0", ssds=4, device="default", overrides=Vec::new(), link=None, queue_depth=256, bin_ms=1000.0, phases=None, writers=None, seed=42, keep_records=false, check=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        layout: &str,
        ssds: u32,
        device: &str,
        overrides: Vec<String>,
        link: Option<String>,
        queue_depth: u32,
        bin_ms: f64,
        phases: Option<Vec<String>>,
        writers: Option<(u32, u64, u64, u32)>,
        seed: u64,
        keep_records: bool,
        check: bool,
    ) -> PyResult<Self> {
        if !(bin_ms.is_finite() && bin_ms > 0.0) {
            return Err(ConfigError::new_err(format!(
                "bin_ms: {bin_ms} must be > 0"
            )));
        }
        let workload = match (phases, writers) {
            (Some(p), None) if !p.is_empty() => ArrayWorkload::Phases(p),
            (None, Some((clients, file, bs, qd))) => ArrayWorkload::Writers {
                clients,
                file,
                bs,
                qd,
            },
            _ => {
                return Err(ConfigError::new_err(
                    "give exactly one of `phases` (non-empty) or `writers`",
                ))
            }
        };
        let cfg = ArrayConfig {
            layout: Layout::parse(layout).map_err(to_py)?,
            ssds,
            queue_depth,
            link: link
                .as_deref()
                .map(LinkConfig::parse)
                .transpose()
                .map_err(to_py)?,
            bin_ns: (bin_ms * 1e6).round() as u64,
            seed,
            keep_records,
        };
        let dev = DeviceConfig::load(device, &overrides).map_err(to_py)?;
        let mut sim =
            py.detach(|| guarded(|| ArraySim::new(cfg, dev, &workload).map_err(to_py)))?;
        if check {
            sim.enable_check();
        }
        Ok(ArraySimulation {
            inner: Mutex::new(sim),
        })
    }

    /// Run up to `max_steps` event time steps; returns True when finished.
    fn advance(&self, py: Python<'_>, max_steps: u64) -> PyResult<bool> {
        py.detach(|| locked(&self.inner, |s| s.advance(max_steps).map_err(to_py)))
    }

    /// Run to completion.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| locked(&self.inner, |s| s.run().map_err(to_py)))
    }

    /// (completed requests, expected total or None, simulated ns).
    fn progress(&self) -> PyResult<(u64, Option<u64>, u64)> {
        let s = self.inner.lock().map_err(poisoned)?;
        let (done, total) = s.progress();
        Ok((done, total, s.now()))
    }

    /// Summary as JSON text (`stable` zeroes wall-clock fields).
    #[pyo3(signature = (stable=false))]
    fn summary_json(&self, stable: bool) -> PyResult<String> {
        locked(&self.inner, |s| Ok(s.summary().to_json(stable)))
    }

    /// Per-bin series: bin_s, array_bytes, wire_in, wire_out, xgc_units,
    /// front, and per-SSD lists ssd_written, ssd_read, gc_cumulative.
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.lock().map_err(poisoned)?;
        let sr = &s.series;
        let d = PyDict::new(py);
        let n = sr.array_bytes.len();
        d.set_item("bin_s", sr.bin_ns as f64 / 1e9)?;
        d.set_item("array_bytes", sr.array_bytes.clone())?;
        let (wi, wo) = s.wire_bytes().unwrap_or((&[], &[]));
        let pad = |v: &[f64]| {
            let mut v = v.to_vec();
            v.resize(n, 0.0);
            v
        };
        d.set_item("wire_in", pad(wi))?;
        d.set_item("wire_out", pad(wo))?;
        d.set_item("xgc_units", sr.xgc_units.clone())?;
        d.set_item("front", sr.front.clone())?;
        d.set_item("ssd_written", sr.ssd_written.clone())?;
        d.set_item("ssd_read", sr.ssd_read.clone())?;
        d.set_item("gc_cumulative", sr.gc_cumulative.clone())?;
        Ok(d)
    }

    /// Check the serial array's mapping and every SSD's FTL invariants.
    fn check_invariants(&self) -> PyResult<()> {
        let s = self.inner.lock().map_err(poisoned)?;
        if let Some(log) = s.serial() {
            log.check_invariants().map_err(SimulationError::new_err)?;
        }
        for ssd in &s.ssds {
            ssd.ftl
                .check_invariants()
                .map_err(SimulationError::new_err)?;
        }
        Ok(())
    }
}

/// Built-in device presets: [(name, description)].
/// `(t - start) / 1000` row by row, as float64 microseconds, from two
/// nanosecond columns of equal length: the same values as numpy's
/// `np.subtract(t, start, dtype=float64) * 1e-3`, in plain memory (numpy
/// asks for huge pages for arrays this size, whose first touch costs several
/// times more on some kernels).
#[pyfunction]
fn us_since(t: &Column, start: &Column) -> PyResult<Column> {
    let (Some(t), Some(s)) = (t.u64s(), start.u64s()) else {
        return Err(PyValueError::new_err("us_since needs two uint64 columns"));
    };
    if t.len() != s.len() {
        return Err(PyValueError::new_err(format!(
            "us_since: columns of {} and {} rows",
            t.len(),
            s.len()
        )));
    }
    let out = t
        .iter()
        .zip(s)
        .map(|(&a, &b)| (a as f64 - b as f64) * 1e-3)
        .collect();
    Ok(Column::new(ColumnData::F64(Arc::new(out))))
}

#[pyfunction]
fn presets() -> Vec<(&'static str, String)> {
    DeviceConfig::presets()
}

/// Supported trace formats: [(name, description)].
#[pyfunction]
fn formats() -> Vec<(&'static str, &'static str)> {
    TraceFormat::all()
        .iter()
        .map(|f| (f.name(), f.describe()))
        .collect()
}

/// Registered host-level schedulers.
#[pyfunction]
fn host_schedulers() -> Vec<&'static str> {
    flashsched_core::host::sched::names()
}

/// Registered device-level (transaction) schedulers.
#[pyfunction]
fn device_schedulers() -> Vec<&'static str> {
    flashsched_core::device::sched::names()
}

/// Load and validate a device config (preset name or .toml path) with
/// overrides; returns the resolved TOML.
#[pyfunction]
#[pyo3(signature = (device, overrides=Vec::new()))]
fn load_config(device: &str, overrides: Vec<String>) -> PyResult<String> {
    guarded(|| {
        DeviceConfig::load(device, &overrides)
            .map(|c| c.to_toml())
            .map_err(to_py)
    })
}

/// Detect a trace file's format name.
#[pyfunction]
fn detect_format(path: PathBuf) -> PyResult<&'static str> {
    guarded(|| core_detect(&path).map(|f| f.name()).map_err(to_py))
}

/// Read a whole trace without simulating it: {format, lines, records,
/// dropped, bad_lines, clamped, first_bad}. Raises like a run would.
#[pyfunction]
#[pyo3(signature = (path, format="auto", skip_bad=false, time_order="clamp"))]
fn scan_trace<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: &str,
    skip_bad: bool,
    time_order: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let options = TraceOptions {
        skip_bad,
        time_order: TimeOrder::from_name(time_order).map_err(to_py)?,
    };
    let fmt = TraceFormat::from_name(format).map_err(to_py)?;
    let (name, st) = py.detach(|| {
        guarded(|| {
            let mut r = open_trace_with(&path, fmt, options).map_err(to_py)?;
            for item in r.by_ref() {
                item.map_err(to_py)?;
            }
            Ok((r.format().name(), r.stats().clone()))
        })
    })?;
    let d = PyDict::new(py);
    d.set_item("format", name)?;
    d.set_item("lines", st.lines)?;
    d.set_item("records", st.records)?;
    d.set_item("dropped", st.dropped)?;
    d.set_item("bad_lines", st.bad_lines)?;
    d.set_item("clamped", st.clamped)?;
    d.set_item("first_bad", st.first_bad)?;
    Ok(d)
}

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::{
        detect_format, device_schedulers, formats, host_schedulers, load_config, presets,
        scan_trace, us_since, ArraySimulation, Column, ConfigError, FlashschedError, Simulation,
        SimulationError, TraceError,
    };

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))
    }

    use pyo3::prelude::*;
}
