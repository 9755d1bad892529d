//! P/E suspension (G. Wu and X. He, FAST'12; write-suspend-erase from their
//! JSA'14 extension; baselines.md §4).
//!
//! Per-die queues with read priority (user reads, then programs and GC
//! copies, then erases; FIFO within each). A user read that finds its die in
//! the cell phase of a program or erase suspends it: the device stops the
//! operation at its next phase boundary (ISPP loop / erase pulse, counts in
//! `controller.program_loops` / `erase_loops`), pays `suspend_us`, serves the
//! queued reads, and resumes the operation with `resume_us` overhead. Rules:
//! - at most one suspended operation per die (the device enforces it);
//! - only if at least `suspend_min_remaining_{program,erase}_us` of the
//!   operation remains after the boundary (not worth it otherwise);
//! - with `write_suspend_erase`, a user program may suspend an erase too;
//! - starvation guard: once `write_queue_limit` writes wait on a die, reads
//!   neither jump ahead of them nor suspend (Wu & He serve writes when the
//!   write queue saturates).
//!
//! Unlike MQSim's TSU (whose switch falls through and never suspends), this
//! scheduler really suspends; the device counts suspensions.

use std::collections::VecDeque;

use super::{PickCtx, TxScheduler};
use crate::config::ControllerConfig;
use crate::device::tx::{Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::flash::Geometry;

#[derive(Debug, Clone, Default)]
struct DieQueues {
    reads: VecDeque<TxId>,
    writes: VecDeque<TxId>,
    erases: VecDeque<TxId>,
}

/// Read-priority scheduling with program/erase suspension.
pub struct PeSuspend {
    dies: Vec<DieQueues>,
    pending: usize,
    suspend_program: bool,
    suspend_erase: bool,
    write_suspend_erase: bool,
    min_program: Ns,
    min_erase: Ns,
    write_limit: usize,
}

fn take_first(q: &mut VecDeque<TxId>, ctx: &PickCtx, pred: impl Fn(&Tx) -> bool) -> Option<TxId> {
    let pos = q.iter().position(|&id| {
        let t = ctx.txs.get(id);
        pred(t) && ctx.can_issue(t)
    })?;
    q.remove(pos)
}

impl PeSuspend {
    pub fn new(g: &Geometry, c: &ControllerConfig) -> Self {
        let ns = |us: f64| (us * 1000.0).round() as Ns;
        PeSuspend {
            dies: vec![DieQueues::default(); g.dies() as usize],
            pending: 0,
            suspend_program: c.suspend_program,
            suspend_erase: c.suspend_erase,
            write_suspend_erase: c.write_suspend_erase,
            min_program: ns(c.suspend_min_remaining_program_us),
            min_erase: ns(c.suspend_min_remaining_erase_us),
            write_limit: c.write_queue_limit as usize,
        }
    }

    fn took(&mut self, id: Option<TxId>) -> Option<TxId> {
        if id.is_some() {
            self.pending -= 1;
        }
        id
    }
}

impl TxScheduler for PeSuspend {
    fn name(&self) -> &'static str {
        "pe-suspend"
    }

    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        let q = &mut self.dies[tx.die as usize];
        match tx.kind {
            TxKind::Read if tx.is_user_read() => q.reads.push_back(id),
            TxKind::Erase => q.erases.push_back(id),
            _ => q.writes.push_back(id),
        }
        self.pending += 1;
    }

    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.dies[die as usize];
        let any = |_: &Tx| true;
        let starving = q.writes.len() >= self.write_limit;
        let id = if starving {
            take_first(&mut q.writes, ctx, any).or_else(|| take_first(&mut q.reads, ctx, any))
        } else {
            take_first(&mut q.reads, ctx, any).or_else(|| take_first(&mut q.writes, ctx, any))
        }
        .or_else(|| take_first(&mut q.erases, ctx, any));
        self.took(id)
    }

    fn pending(&self) -> usize {
        self.pending
    }

    fn per_die(&self) -> bool {
        true
    }

    fn suspends(&self) -> bool {
        true
    }

    fn preempt(&mut self, die: u32, running: &Tx, remaining: Ns, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.dies[die as usize];
        let (allowed, min) = match running.kind {
            TxKind::Program => (self.suspend_program, self.min_program),
            TxKind::Erase => (self.suspend_erase, self.min_erase),
            TxKind::Read => return None,
        };
        if !allowed || remaining < min {
            return None;
        }
        let any = |_: &Tx| true;
        let mut id = None;
        if q.writes.len() < self.write_limit {
            id = take_first(&mut q.reads, ctx, any);
        }
        if id.is_none() && self.write_suspend_erase && running.kind == TxKind::Erase {
            id = take_first(&mut q.writes, ctx, |t| {
                t.kind == TxKind::Program && t.origin == crate::device::tx::Origin::User
            });
        }
        self.took(id)
    }
}
