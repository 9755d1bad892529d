//! What the core offers (presets, formats, schedulers) and the config and
//! trace checks that need no simulation.

use std::path::PathBuf;

use flashsched_core::config::DeviceConfig;
use flashsched_core::memory::Estimate;
use flashsched_core::workload::trace::{
    detect_format as core_detect, open_trace_with, TimeOrder, TraceFormat, TraceOptions,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guarded, to_py};

/// Built-in device presets: [(name, description)].
#[pyfunction]
pub(crate) fn presets() -> Vec<(&'static str, String)> {
    DeviceConfig::presets()
}

/// Supported trace formats: [(name, description)]; the last entry is the
/// column mapping (`csv:...`, `ws:...` or a `.toml` file).
#[pyfunction]
pub(crate) fn formats() -> Vec<(&'static str, &'static str)> {
    let mapping = TraceFormat::from_name("csv:time=0:s,op=1:R/W,offset=2:B,size=3:B")
        .ok()
        .flatten();
    TraceFormat::all()
        .iter()
        .chain(mapping.as_ref())
        .map(|f| (f.name(), f.describe()))
        .collect()
}

/// Registered host-level schedulers.
#[pyfunction]
pub(crate) fn host_schedulers() -> Vec<&'static str> {
    flashsched_core::host::sched::names()
}

/// Registered device-level (transaction) schedulers.
#[pyfunction]
pub(crate) fn device_schedulers() -> Vec<&'static str> {
    flashsched_core::device::sched::names()
}

/// Load and validate a device config (preset name or .toml path) with
/// overrides; returns the resolved TOML.
#[pyfunction]
#[pyo3(signature = (device, overrides=Vec::new()))]
pub(crate) fn load_config(device: &str, overrides: Vec<String>) -> PyResult<String> {
    guarded(|| {
        DeviceConfig::load(device, &overrides)
            .map(|c| c.to_toml())
            .map_err(to_py)
    })
}

/// The memory a run of `ssds` copies of `device` would allocate, estimated
/// before building (docs/reliability.md): {peak, what, parts: [(name,
/// bytes)], breakdown}; `requests` per-request rows if known.
#[pyfunction]
#[pyo3(signature = (device, overrides=Vec::new(), check=false, requests=None, ssds=1))]
pub(crate) fn memory_estimate<'py>(
    py: Python<'py>,
    device: &str,
    overrides: Vec<String>,
    check: bool,
    requests: Option<u64>,
    ssds: u32,
) -> PyResult<Bound<'py, PyDict>> {
    let est = guarded(|| {
        let cfg = DeviceConfig::load(device, &overrides).map_err(to_py)?;
        Ok(Estimate::new(&cfg, ssds, check, requests))
    })?;
    let d = PyDict::new(py);
    d.set_item("peak", est.peak)?;
    d.set_item("what", &est.what)?;
    d.set_item("breakdown", est.breakdown())?;
    d.set_item("parts", est.parts.clone())?;
    Ok(d)
}

/// Detect a trace file's format name (`-`: standard input, consumed).
#[pyfunction]
pub(crate) fn detect_format(path: PathBuf) -> PyResult<&'static str> {
    guarded(|| core_detect(&path).map(|f| f.name()).map_err(to_py))
}

/// Read a whole trace without simulating it: {format, lines, records,
/// dropped, bad_lines, clamped, first_bad, time_order, decoding}. Raises
/// like a run would.
#[pyfunction]
#[pyo3(signature = (path, format="auto", skip_bad=false, time_order="auto"))]
pub(crate) fn scan_trace<'py>(
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
            Ok((r.format().to_string(), r.stats().clone()))
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
    d.set_item("time_order", st.time_order)?;
    d.set_item("decoding", st.decoding)?;
    Ok(d)
}
