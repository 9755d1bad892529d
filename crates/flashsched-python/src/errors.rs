//! Core errors as Python exceptions, and the guard that keeps a core panic
//! (a bug) from crossing into Python.

use std::sync::Mutex;

use flashsched_core::error::SimError;
use flashsched_core::memory::MemoryLimit;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyRuntimeError};
use pyo3::prelude::*;

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
    MemoryLimitError,
    FlashschedError,
    "The run would need more memory than its limit (available memory or max_memory)."
);
pyo3::create_exception!(
    flashsched,
    SimulationError,
    FlashschedError,
    "The simulation reached an invalid state."
);

pub(crate) fn to_py(e: Box<SimError>) -> PyErr {
    let msg = e.to_string();
    match *e {
        SimError::Config { .. } | SimError::ConfigFile { .. } | SimError::UnknownName { .. } => {
            ConfigError::new_err(msg)
        }
        SimError::Trace { .. } => TraceError::new_err(msg),
        SimError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(msg)
        }
        SimError::Io { .. } => TraceError::new_err(msg),
        SimError::MemoryLimit(_) => MemoryLimitError::new_err(msg),
        SimError::Invalid(_) => SimulationError::new_err(msg),
    }
}

/// `max_memory` as given (`None`: `FLASHSCHED_MAX_MEMORY`, else the memory
/// available now).
pub(crate) fn memory_limit(max_memory: Option<&str>) -> PyResult<MemoryLimit> {
    match max_memory {
        Some(t) => MemoryLimit::parse("max_memory", t),
        None => MemoryLimit::from_env(),
    }
    .map_err(to_py)
}

/// Run a binding body; a panic in the core (a bug) becomes a
/// `SimulationError` instead of crossing into Python. A simulation whose
/// lock was held by the panicking call is poisoned and refuses further use.
pub(crate) fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(SimulationError::new_err(
            flashsched_core::error::panic_message(payload.as_ref()),
        ))
    })
}

pub(crate) fn poisoned<T>(_: T) -> PyErr {
    PyRuntimeError::new_err("simulation state is unusable after an earlier panic")
}

/// Run `f` on the simulation behind `m`, [`guarded`].
pub(crate) fn locked<S, T>(m: &Mutex<S>, f: impl FnOnce(&mut S) -> PyResult<T>) -> PyResult<T> {
    guarded(|| f(&mut *m.lock().map_err(poisoned)?))
}
