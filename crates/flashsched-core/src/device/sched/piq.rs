//! PIQ — Parallel Issue Queuing (C. Gao et al., MSST'14; baselines.md §3).
//!
//! Requests without chip conflicts share a batch, conflicting ones go to
//! later batches; a batch's requests are issued together so they run in
//! parallel. Reads are preferred (separate read batch list, issued first)
//! with bounded write starvation (`controller.piq.max_read_batches`). Batch
//! granularity is the chip, as in the MSST'14 version, or the die / plane
//! (TCAD'18 extension) with `controller.piq.granularity`. Mechanics shared with
//! VIOS live in `batch.rs`.

use super::batch::{BatchCore, Unit};
use serde::{Deserialize, Serialize};

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Tx, TxId};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::Geometry;
use crate::registry::{check_range, Params};

/// Chip-level conflict-free batching with read preference.
pub struct Piq {
    core: BatchCore,
}

/// `[controller.piq]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PiqParams {
    /// Read batches issued in a row while writes wait before one write
    /// batch must go (bounded write starvation).
    pub max_read_batches: u32,
    /// Conflict unit: `chip` (MSST'14), `die` or `plane` (TCAD'18).
    pub granularity: Unit,
}

impl Default for PiqParams {
    fn default() -> Self {
        PiqParams {
            max_read_batches: 4,
            granularity: Unit::Chip,
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

impl TxSchedulerType for Piq {
    const NAME: &'static str = "piq";
    const ABOUT: &'static str = "PIQ: conflict-free batches issued together, reads first";
    type Params = PiqParams;

    fn new(p: PiqParams, g: &Geometry) -> Self {
        Piq {
            core: BatchCore::new(g, p.granularity, false, false, p.max_read_batches),
        }
    }
}

impl TxScheduler for Piq {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        self.core.push(id, tx);
    }
    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        self.core.pick(die, ctx)
    }
    fn pending(&self) -> usize {
        self.core.pending()
    }
    fn caps(&self) -> TxCaps {
        TxCaps {
            per_die: false,
            coordinates: true,
            suspends: false,
        }
    }

    fn prepare(&mut self, ctx: &PickCtx) {
        self.core.prepare(ctx);
    }
    fn wakes(&mut self, out: &mut Vec<u32>) {
        self.core.wakes(out);
    }
}
