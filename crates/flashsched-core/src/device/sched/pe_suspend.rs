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
//! - only if at least `min_remaining_{program,erase}_us` of the
//!   operation remains after the boundary (not worth it otherwise);
//! - with `write_suspend_erase`, a user program may suspend an erase too;
//! - starvation guard: once `write_queue_limit` writes wait on a die, reads
//!   neither jump ahead of them nor suspend (Wu & He serve writes when the
//!   write queue saturates).
//!
//! Unlike MQSim's TSU (whose switch falls through and never suspends), this
//! scheduler really suspends; the device counts suspensions.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::Geometry;
use crate::registry::{check_range, Params};

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

/// `[controller.pe-suspend]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PeSuspendParams {
    /// Suspend programs for reads.
    pub suspend_program: bool,
    /// Suspend erases for reads.
    pub suspend_erase: bool,
    /// Writes may suspend erases too (Wu & He, JSA'14 "write-suspend-erase").
    pub write_suspend_erase: bool,
    /// A program is only suspended if at least this much of it remains after
    /// the next phase boundary.
    pub min_remaining_program_us: f64,
    /// Same for erases.
    pub min_remaining_erase_us: f64,
    /// Writes queued on a die at which reads stop being preferred
    /// (starvation guard).
    pub write_queue_limit: u32,
}

impl Default for PeSuspendParams {
    fn default() -> Self {
        PeSuspendParams {
            suspend_program: true,
            suspend_erase: true,
            write_suspend_erase: false,
            min_remaining_program_us: 50.0,
            min_remaining_erase_us: 100.0,
            write_queue_limit: 64,
        }
    }
}

impl Params for PeSuspendParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        let p = self;
        check_range(
            key,
            "min_remaining_program_us",
            p.min_remaining_program_us,
            0.0,
            1e6,
        )?;
        check_range(
            key,
            "min_remaining_erase_us",
            p.min_remaining_erase_us,
            0.0,
            1e7,
        )?;
        check_range(
            key,
            "write_queue_limit",
            p.write_queue_limit as f64,
            1.0,
            1e6,
        )
    }
}

impl TxSchedulerType for PeSuspend {
    const NAME: &'static str = "pe-suspend";
    const ABOUT: &'static str = "read priority with program/erase suspension (Wu & He)";
    type Params = PeSuspendParams;

    fn new(p: PeSuspendParams, g: &Geometry) -> Self {
        let ns = |us: f64| (us * 1000.0).round() as Ns;
        PeSuspend {
            dies: vec![DieQueues::default(); g.dies() as usize],
            pending: 0,
            suspend_program: p.suspend_program,
            suspend_erase: p.suspend_erase,
            write_suspend_erase: p.write_suspend_erase,
            min_program: ns(p.min_remaining_program_us),
            min_erase: ns(p.min_remaining_erase_us),
            write_limit: p.write_queue_limit as usize,
        }
    }
}

impl PeSuspend {
    fn took(&mut self, id: Option<TxId>) -> Option<TxId> {
        if id.is_some() {
            self.pending -= 1;
        }
        id
    }
}

impl TxScheduler for PeSuspend {
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

    /// The oldest queued transaction of the die (reads, then writes, then
    /// erases) that may join the multi-plane command led by `lead`.
    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.dies[die as usize];
        let id = [&mut q.reads, &mut q.writes, &mut q.erases]
            .into_iter()
            .find_map(|q| take_first(q, ctx, |t| ctx.companion_ok(lead, t, taken)));
        self.took(id)
    }

    fn caps(&self) -> TxCaps {
        TxCaps {
            per_die: true,
            suspends: true,
            ..TxCaps::default()
        }
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
