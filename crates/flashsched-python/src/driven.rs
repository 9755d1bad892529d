//! What every simulation object offers Python (run, advance, progress,
//! summary), written once over the core's two simulations.

use std::sync::Mutex;

use flashsched_core::array::ArraySim;
use flashsched_core::error::SimResult;
use flashsched_core::sim::Simulation;
use pyo3::prelude::*;

use crate::errors::{locked, poisoned, to_py};

/// A core simulation as the bindings drive it.
pub(crate) trait Driven: Send {
    fn advance(&mut self, max_steps: u64) -> SimResult<bool>;
    fn progress(&self) -> (u64, Option<u64>);
    fn now(&self) -> u64;
    fn summary_json(&self, stable: bool) -> String;
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
}

/// Run up to `max_steps` instants with the GIL released; true when finished.
pub(crate) fn advance<S: Driven>(py: Python<'_>, m: &Mutex<S>, max_steps: u64) -> PyResult<bool> {
    py.detach(|| locked(m, |s| s.advance(max_steps).map_err(to_py)))
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
