//! PIQ — Parallel Issue Queuing (C. Gao et al., MSST'14; baselines.md §3).
//!
//! Requests without chip conflicts share a batch, conflicting ones go to
//! later batches; a batch's requests are issued together so they run in
//! parallel. Reads are preferred (separate read batch list, issued first)
//! with bounded write starvation (`controller.piq.max_read_batches`). Batch
//! granularity is the chip, as in the MSST'14 version, or the die / plane
//! (TCAD'18 extension) with `controller.piq.granularity`. Released work
//! starts on a die in release order, or reads first (`controller.piq.order =
//! "reads-first"`: where issued work goes is the controller's, not PIQ's;
//! the VIOS reproduction sets it to match SSDsim's, which serves a chip's
//! reads first). Mechanics shared with VIOS live in `batch.rs`.

use super::batch::{BatchCore, BatchPolicy, Batched, StartOrder, Unit};
use serde::{Deserialize, Serialize};

use crate::error::SimResult;
use crate::flash::Geometry;
use crate::registry::{check_range, Params};

/// PIQ as a transaction scheduler.
pub type Piq = Batched<PiqPolicy>;

/// `[controller.piq]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PiqParams {
    /// Read batches issued in a row while writes wait before one write
    /// batch must go (bounded write starvation).
    pub max_read_batches: u32,
    /// Conflict unit: `chip` (MSST'14), `die` or `plane` (TCAD'18).
    pub granularity: Unit,
    /// Order a die (chip, under chip-level busy) starts released work in:
    /// `in-order` (default) or `reads-first` (SSDsim's controller).
    pub order: StartOrder,
}

impl Default for PiqParams {
    fn default() -> Self {
        PiqParams {
            max_read_batches: 4,
            granularity: Unit::Chip,
            order: StartOrder::InOrder,
        }
    }
}

impl Params for PiqParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(
            key,
            "max_read_batches",
            self.max_read_batches as f64,
            1.0,
            1e6,
        )
    }
}

/// How PIQ sets up the batching core.
pub struct PiqPolicy;

impl BatchPolicy for PiqPolicy {
    const NAME: &'static str = "piq";
    const ABOUT: &'static str = "PIQ: conflict-free batches issued together, reads first";
    type Params = PiqParams;

    fn core(p: PiqParams, g: &Geometry) -> BatchCore {
        BatchCore::new(g, p.granularity, false, false, p.max_read_batches).with_order(p.order)
    }
}
