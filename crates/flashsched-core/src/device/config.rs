//! `[controller]`: the device controller below the FTL — the transaction
//! scheduler, every transaction scheduler's tunables table, and the NAND
//! suspend timing any suspending scheduler uses.

use serde::{Deserialize, Serialize};

use super::sched::REGISTRY;
use crate::error::{SimError, SimResult};
use crate::flash::timing::range;
use crate::flash::{GeometryConfig, TimingConfig, VariationConfig};
use crate::ftl::FtlConfig;
use crate::registry::SchedTables;

/// The sections of a device config an SSD is built from.
#[derive(Debug, Clone, Copy)]
pub struct SsdSpec<'a> {
    pub geometry: &'a GeometryConfig,
    pub timing: &'a TimingConfig,
    pub ftl: &'a FtlConfig,
    pub controller: &'a ControllerConfig,
    pub variation: &'a VariationConfig,
}

impl SsdSpec<'_> {
    /// Every section's checks; each error names its key.
    pub fn validate(&self) -> SimResult<()> {
        self.geometry.validate()?;
        self.timing.validate()?;
        self.ftl.validate_for(self.geometry)?;
        self.controller.validate()?;
        self.variation.validate()
    }
}

/// Device controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ControllerConfig {
    /// Flash transaction scheduler name (see [`REGISTRY`]).
    pub scheduler: String,
    /// ISPP program loops (suspension points are loop boundaries).
    pub program_loops: u32,
    /// Erase pulses (suspension points are pulse boundaries).
    pub erase_loops: u32,
    /// Time to suspend (added before the suspending operation starts).
    pub suspend_us: f64,
    /// Overhead added to the remaining time when an operation resumes.
    pub resume_us: f64,
    /// Each transaction scheduler's tunables (`[controller.<name>]`), by
    /// name; a resolved config holds every registered scheduler's table.
    #[serde(flatten)]
    pub sched: SchedTables,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            scheduler: "fifo".into(),
            program_loops: 10,
            erase_loops: 5,
            suspend_us: 5.0,
            resume_us: 10.0,
            sched: SchedTables::new(),
        }
    }
}

impl ControllerConfig {
    /// Range checks, the scheduler name and every tunables table; each
    /// error names its key.
    pub fn validate(&self) -> SimResult<()> {
        range("controller.suspend_us", self.suspend_us, 0.0, 1e4)?;
        range("controller.resume_us", self.resume_us, 0.0, 1e4)?;
        for (key, v) in [
            ("controller.program_loops", self.program_loops),
            ("controller.erase_loops", self.erase_loops),
        ] {
            if v == 0 || v > 1_000_000 {
                return Err(SimError::config(
                    key,
                    format!("{v} is outside [1, 1000000]"),
                ));
            }
        }
        REGISTRY.validate(&self.scheduler, &self.sched)
    }
}
