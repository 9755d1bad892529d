//! FIFO: per-die queues served in arrival order. A program that cannot get a
//! page yet (its plane is waiting for GC) is passed over so the GC work queued
//! behind it can run — otherwise the die would deadlock. With multi-plane
//! commands on, the oldest compatible transactions of the die join the one
//! picked.

use std::collections::VecDeque;

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Tx, TxId};
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::registry::NoParams;

/// Arrival-order transaction scheduler.
pub struct Fifo {
    queues: Vec<VecDeque<TxId>>,
    pending: usize,
}

impl TxSchedulerType for Fifo {
    const NAME: &'static str = "fifo";
    const ABOUT: &'static str = "per-die queues in arrival order; idle dies pull work";
    type Params = NoParams;

    fn new(_: NoParams, g: &Geometry) -> Self {
        Fifo {
            queues: vec![VecDeque::new(); g.dies() as usize],
            pending: 0,
        }
    }
}

impl TxScheduler for Fifo {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        self.queues[tx.die as usize].push_back(id);
        self.pending += 1;
    }

    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.queues[die as usize];
        // The head is almost always issuable; scan past it only if not.
        let head = *q.front()?;
        if ctx.can_issue(ctx.txs.get(head)) {
            self.pending -= 1;
            return q.pop_front();
        }
        let pos = q
            .iter()
            .skip(1)
            .position(|&id| ctx.can_issue(ctx.txs.get(id)))?;
        self.pending -= 1;
        q.remove(pos + 1)
    }

    fn pending(&self) -> usize {
        self.pending
    }

    /// The oldest queued transaction of the die that may join the command.
    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.queues[die as usize];
        let pos = q
            .iter()
            .position(|&id| ctx.companion_ok(lead, ctx.txs.get(id), taken))?;
        self.pending -= 1;
        q.remove(pos)
    }

    fn caps(&self) -> TxCaps {
        TxCaps {
            per_die: true,
            ..TxCaps::default()
        }
    }
}
