//! What every simulation object offers Python (run, advance, progress,
//! summary), written once over the core's two simulations.

use std::sync::Mutex;

use flashsched_core::array::ArraySim;
use flashsched_core::device::Ssd;
use flashsched_core::error::SimResult;
use flashsched_core::sim::Simulation;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{locked, poisoned, to_py};

/// A core simulation as the bindings drive it.
pub(crate) trait Driven: Send {
    fn advance(&mut self, max_steps: u64) -> SimResult<bool>;
    fn progress(&self) -> (u64, Option<u64>);
    fn now(&self) -> u64;
    fn summary_json(&self, stable: bool) -> String;
    /// The devices' checkers' counts, or None when check mode is off.
    fn check_counts(&mut self) -> Option<CheckCounts>;
}

/// What check mode verified over a run (summed over an array's SSDs).
#[derive(Default)]
pub(crate) struct CheckCounts {
    records: u64,
    page_reads_verified: u64,
    audits: u64,
    pages_audited: u64,
}

impl CheckCounts {
    /// Add one SSD's checker; false when that SSD runs without one.
    fn add(&mut self, ssd: &mut Ssd) -> bool {
        let Some((c, _)) = ssd.checker() else {
            return false;
        };
        self.records += c.records;
        self.page_reads_verified += c.oracle.reads_checked;
        self.audits += c.audits;
        // An audit walks every physical page of the checker's flash model.
        self.pages_audited += c.audits * c.flash.geo.pages();
        true
    }
}

impl Driven for Simulation {
    fn advance(&mut self, max_steps: u64) -> SimResult<bool> {
        Simulation::advance(self, max_steps)
    }
    fn progress(&self) -> (u64, Option<u64>) {
        Simulation::progress(self)
    }
    fn now(&self) -> u64 {
        Simulation::now(self)
    }
    fn summary_json(&self, stable: bool) -> String {
        self.summary().to_json(stable)
    }
    fn check_counts(&mut self) -> Option<CheckCounts> {
        let mut c = CheckCounts::default();
        c.add(&mut self.ssd).then_some(c)
    }
}

impl Driven for ArraySim {
    fn advance(&mut self, max_steps: u64) -> SimResult<bool> {
        ArraySim::advance(self, max_steps)
    }
    fn progress(&self) -> (u64, Option<u64>) {
        ArraySim::progress(self)
    }
    fn now(&self) -> u64 {
        ArraySim::now(self)
    }
    fn summary_json(&self, stable: bool) -> String {
        self.summary().to_json(stable)
    }
    fn check_counts(&mut self) -> Option<CheckCounts> {
        let mut c = CheckCounts::default();
        let mut on = false;
        for ssd in &mut self.ssds {
            on |= c.add(ssd);
        }
        on.then_some(c)
    }
}

/// Run up to `max_steps` instants with the GIL released; true when finished.
pub(crate) fn advance<S: Driven>(py: Python<'_>, m: &Mutex<S>, max_steps: u64) -> PyResult<bool> {
    py.detach(|| locked(m, |s| s.advance(max_steps).map_err(to_py)))
}

/// Steps between checks of `advance_until`'s stop condition (~1 ms of a
/// run; the check is a counter read).
const UNTIL_CHECK_STEPS: u64 = 4096;

/// Like [`advance`], stopping early once `completed` requests have
/// completed: a caller that drains rows every so many requests returns to
/// Python once per drain instead of once per chunk of steps (each return
/// takes the GIL, which pyarrow's import or a writer thread may hold).
pub(crate) fn advance_until<S: Driven>(
    py: Python<'_>,
    m: &Mutex<S>,
    completed: u64,
    max_steps: u64,
) -> PyResult<bool> {
    py.detach(|| {
        locked(m, |s| {
            let mut left = max_steps;
            loop {
                let k = left.min(UNTIL_CHECK_STEPS);
                let finished = s.advance(k).map_err(to_py)?;
                left -= k;
                if finished || left == 0 || s.progress().0 >= completed {
                    return Ok(finished);
                }
            }
        })
    })
}

/// Run to completion with the GIL released.
pub(crate) fn run<S: Driven>(py: Python<'_>, m: &Mutex<S>) -> PyResult<()> {
    advance(py, m, u64::MAX).map(|_| ())
}

/// (completed requests, expected total or None, simulated ns).
pub(crate) fn progress<S: Driven>(m: &Mutex<S>) -> PyResult<(u64, Option<u64>, u64)> {
    let s = m.lock().map_err(poisoned)?;
    let (done, total) = s.progress();
    Ok((done, total, s.now()))
}

/// The summary as JSON text (`stable` zeroes wall-clock fields).
pub(crate) fn summary_json<S: Driven>(m: &Mutex<S>, stable: bool) -> PyResult<String> {
    locked(m, |s| Ok(s.summary_json(stable)))
}

/// Check mode's counts as a dict (records, page_reads_verified, audits,
/// pages_audited), or None when check mode is off.
pub(crate) fn check_counts<'py, S: Driven>(
    py: Python<'py>,
    m: &Mutex<S>,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(c) = m.lock().map_err(poisoned)?.check_counts() else {
        return Ok(None);
    };
    let d = PyDict::new(py);
    d.set_item("records", c.records)?;
    d.set_item("page_reads_verified", c.page_reads_verified)?;
    d.set_item("audits", c.audits)?;
    d.set_item("pages_audited", c.pages_audited)?;
    Ok(Some(d))
}
