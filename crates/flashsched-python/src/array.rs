//! A simulated SSD array.

use std::sync::Mutex;

use flashsched_core::array::network::LinkConfig;
use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::config::DeviceConfig;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::driven;
use crate::errors::{guarded, memory_limit, poisoned, to_py, ConfigError, SimulationError};

/// A simulated SSD array (RAID-0/RAID-5/serial) behind an optional link.
#[pyclass(module = "flashsched._core")]
pub(crate) struct ArraySimulation {
    inner: Mutex<ArraySim>,
}

#[pymethods]
impl ArraySimulation {
    /// Build an array of `ssds` copies of `device`. Give `phases` (synthetic
    /// specs run in sequence) or `writers` = (clients, file bytes, bs, qd).
    #[new]
    #[pyo3(signature = (layout="raid0", ssds=4, device="default", overrides=Vec::new(), link=None, queue_depth=256, bin_ms=1000.0, phases=None, writers=None, seed=42, keep_records=false, check=false, max_memory=None, ssd_speeds=Vec::new()))]
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
        max_memory: Option<String>,
        ssd_speeds: Vec<f64>,
    ) -> PyResult<Self> {
        let limit = memory_limit(max_memory.as_deref())?;
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
        let mut sim = py.detach(|| {
            guarded(|| ArraySim::new_with(cfg, dev, &workload, check, limit).map_err(to_py))
        })?;
        sim.set_ssd_speeds(&ssd_speeds).map_err(to_py)?;
        if check {
            sim.enable_check();
        }
        Ok(ArraySimulation {
            inner: Mutex::new(sim),
        })
    }

    /// Run up to `max_steps` event time steps; returns True when finished.
    fn advance(&self, py: Python<'_>, max_steps: u64) -> PyResult<bool> {
        driven::advance(py, &self.inner, max_steps)
    }

    /// Run to completion.
    fn run(&self, py: Python<'_>) -> PyResult<()> {
        driven::run(py, &self.inner)
    }

    /// (completed requests, expected total or None, simulated ns).
    fn progress(&self) -> PyResult<(u64, Option<u64>, u64)> {
        driven::progress(&self.inner)
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

    /// Per-bin series over the bins in which anything happened (idle bins
    /// are absent; `bin` says which bin each row is): bin_s, bin,
    /// array_bytes, wire_in, wire_out, xgc_units, front, front_mask, and per-SSD lists
    /// ssd_written, ssd_read, gc_cumulative, gc_moved_cumulative.
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.inner.lock().map_err(poisoned)?;
        let t = s.series_table();
        let d = PyDict::new(py);
        d.set_item("bin_s", s.series.bin_ns as f64 / 1e9)?;
        d.set_item("bin", t.bins)?;
        d.set_item("array_bytes", t.array_bytes)?;
        d.set_item("wire_in", t.wire_in)?;
        d.set_item("wire_out", t.wire_out)?;
        d.set_item("xgc_units", t.xgc_units)?;
        d.set_item("front", t.front)?;
        d.set_item("front_mask", t.front_mask)?;
        d.set_item("ssd_written", t.ssd_written)?;
        d.set_item("ssd_read", t.ssd_read)?;
        d.set_item("gc_cumulative", t.gc_cumulative)?;
        d.set_item("gc_moved_cumulative", t.gc_moved_cumulative)?;
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
