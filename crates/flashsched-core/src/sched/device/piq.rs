//! PIQ — Parallel Issue Queuing (C. Gao et al., MSST'14; baselines.md §3).
//!
//! Requests without chip conflicts share a batch, conflicting ones go to
//! later batches; a batch's requests are issued together so they run in
//! parallel. Reads are preferred (separate read batch list, issued first)
//! with bounded write starvation (`controller.piq_max_read_batches`). Batch
//! granularity is the chip, as in the MSST'14 version, or the die / plane
//! (TCAD'18 extension) with `controller.piq_granularity`. Mechanics shared with
//! VIOS live in `batch.rs`.

use super::batch::{BatchCore, Unit};
use super::{PickCtx, TxScheduler};
use crate::config::ControllerConfig;
use crate::device::tx::{Tx, TxId};
use crate::engine::Ns;
use crate::flash::Geometry;

/// Chip-level conflict-free batching with read preference.
pub struct Piq {
    core: BatchCore,
}

impl Piq {
    pub fn new(g: &Geometry, c: &ControllerConfig) -> Self {
        Piq {
            core: BatchCore::new(
                g,
                Unit::parse(&c.piq_granularity).unwrap_or(Unit::Chip),
                false,
                false,
                c.piq_max_read_batches,
            ),
        }
    }
}

impl TxScheduler for Piq {
    fn name(&self) -> &'static str {
        "piq"
    }
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        self.core.push(id, tx);
    }
    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        self.core.pick(die, ctx)
    }
    fn pending(&self) -> usize {
        self.core.pending()
    }
    fn coordinates(&self) -> bool {
        true
    }

    fn prepare(&mut self, ctx: &PickCtx) {
        self.core.prepare(ctx);
    }
    fn wakes(&mut self, out: &mut Vec<u32>) {
        self.core.wakes(out);
    }
}
