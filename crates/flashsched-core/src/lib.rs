//! # flashsched-core
//!
//! A discrete-event simulator of flash SSDs and SSD arrays for evaluating I/O
//! schedulers. Data flows one way:
//!
//! workload ([`workload`]) → host scheduler ([`host::sched`]) → device
//! queue ([`host`]) → FTL ([`ftl`]) → transaction scheduler
//! ([`device::sched`]) → flash ([`flash`]), all driven by the one loop in
//! [`engine`] over a model: one SSD ([`sim::Simulation`]) or an array
//! ([`array::ArraySim`]).
//!
//! Layers depend only downward (a test checks it): `engine`, `io` (the
//! vocabulary layers share) and `registry` at the bottom, then `flash`,
//! `ftl`, `check`, `device`, `host`; `config` composes each layer's own
//! config section; the simulations on top.
//!
//! ```
//! use flashsched_core::run::{self, RunSpec, WorkloadSpec};
//!
//! let spec = RunSpec {
//!     device: "ssdsim-default".into(),
//!     overrides: vec!["ftl.precondition_fill=0.5".into()],
//!     workload: WorkloadSpec::Synthetic("read=0.7,bs=4k,iops=2000,n=2000".into()),
//!     seed: 1,
//!     keep_records: false,
//! };
//! let mut sim = run::build(&spec)?;
//! sim.run()?;
//! let summary = sim.summary();
//! assert_eq!(summary.requests, 2000);
//! assert!(summary.latency_us.mean > 0.0);
//! # Ok::<(), Box<flashsched_core::SimError>>(())
//! ```

#![warn(missing_docs, unreachable_pub)]

pub mod array;
pub mod check;
pub mod config;
pub mod device;
pub mod divisor;
pub mod engine;
pub mod error;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod io;
pub mod memory;
pub mod metrics;
pub mod registry;
pub mod rng;
pub mod run;
pub mod sim;
pub mod workload;

pub use error::{SimError, SimResult};

#[cfg(test)]
mod layers_test;
