//! PyO3 bindings: a thin layer over `flashsched-core`. Every core error
//! becomes a Python exception; nothing here panics across the boundary, and
//! simulation work runs with the GIL released.

mod array;
mod catalog;
mod column;
mod driven;
mod errors;
mod replay;
mod single;

use pyo3::prelude::*;

#[pymodule]
mod _core {
    #[pymodule_export]
    use super::array::ArraySimulation;
    #[pymodule_export]
    use super::catalog::{
        detect_format, device_schedulers, formats, host_schedulers, load_config, memory_estimate,
        presets, scan_trace,
    };
    #[pymodule_export]
    use super::column::{numeric_csv, us_since, Column};
    #[pymodule_export]
    use super::errors::{
        ConfigError, FlashschedError, MemoryLimitError, SimulationError, TraceError,
    };
    #[pymodule_export]
    use super::replay::{
        probe, uring_unavailable, Replay, ReplayError, UnsafeTargetError, VerifyError,
    };
    #[pymodule_export]
    use super::single::Simulation;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        // The PGO profile this build used (set by the build backend,
        // `build_backend/flashsched_build.py`), or None: benchmarks say
        // which build they timed.
        m.add("BUILD_PGO", option_env!("FLASHSCHED_PGO_PROFILE"))?;
        m.add(
            "SSDSIM_PLAIN",
            flashsched_core::config::SSDSIM_PLAIN.to_vec(),
        )
    }

    use pyo3::prelude::*;
}
