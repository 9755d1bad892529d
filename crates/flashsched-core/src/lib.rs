//! # flashsched-core
//!
//! A discrete-event simulator of flash SSDs and SSD arrays for evaluating I/O
//! schedulers. Data flows one way:
//!
//! workload → host scheduler ([`sched::host`]) → device queue ([`host`]) →
//! FTL ([`ftl`]) → transaction scheduler ([`sched::device`]) → flash
//! ([`flash`]), all driven by the event queue in [`engine`] from
//! [`sim::Simulation`].
//!
//! ```
//! use flashsched_core::{config::DeviceConfig, sim::{RunOptions, Simulation}};
//! use flashsched_core::workload::synthetic::SyntheticSpec;
//!
//! let cfg = DeviceConfig::load("ssdsim-default", &[]).unwrap();
//! let spec = SyntheticSpec::parse("read=0.5,bs=4k,iops=5000,n=2000").unwrap();
//! let cap = cfg.geometry.page_size as u64; // any capacity check happens in build
//! let _ = cap;
//! let mut sim = Simulation::new(cfg, Box::new(NoWorkload), RunOptions::default()).unwrap();
//! # struct NoWorkload;
//! # impl flashsched_core::workload::Workload for NoWorkload {
//! #   fn poll(&mut self, _: u64, _: &mut Vec<flashsched_core::workload::IoRecord>)
//! #     -> flashsched_core::error::SimResult<flashsched_core::workload::Poll> { Ok(flashsched_core::workload::Poll::Done) }
//! #   fn describe(&self) -> String { "none".into() }
//! # }
//! sim.run().unwrap();
//! let _ = spec;
//! assert_eq!(sim.summary().requests, 0);
//! ```

pub mod array;
pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod flash;
pub mod ftl;
pub mod host;
pub mod metrics;
pub mod rng;
pub mod run;
pub mod sched;
pub mod sim;
pub mod workload;

pub use error::{SimError, SimResult};
