//! `ssdsim-fcfs`: the FIFO baseline of the AOS and VIOS papers, which both
//! evaluate on SSDsim (its `scheduling algorithm = 1`, FCFS): each chip
//! serves its transactions strictly in arrival order, so a transaction
//! waits for every older one on its chip, even on another die or plane
//! (head-of-line blocking; AOS §II: "all requests are executed in FIFO
//! order", so no data hazard can occur). With `order = "reads-first"`,
//! reads go before writes as SSDsim's channel loop serves them (each kind
//! still in order).
//!
//! GC moves and erases wait in a queue of their own per chip and go before
//! user work (SSDsim runs GC as its own operation, not in the request
//! queue); user programs waiting for the space they free would otherwise
//! block the chip for good. For the same reason, with several GC jobs per
//! plane (`ftl.gc_jobs_per_plane > 1`; SSDsim runs one), an erase that can
//! start passes GC moves ahead of it that cannot: one job's moves can wait
//! for the block another job's erase frees. With multi-plane commands on, the oldest
//! compatible transactions of the lead's die join it (SSDsim pairs
//! two-plane operations from its queues the same way; `pairing = "queue"`).
//! `pairing = "head"` is the strictly in-order reading of a FIFO (AOS §II-C:
//! "all requests are executed in FIFO order"): a companion must be the next
//! transaction of its queue, so a command never takes a younger request
//! past an older one.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Origin, Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::registry::Params;

/// `[controller.ssdsim-fcfs]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SsdsimParams {
    /// Which user transaction goes first.
    pub order: FcfsOrder,
    /// Where multi-plane companions may come from.
    pub pairing: Pairing,
}

/// `pairing`: which queued transactions may join a multi-plane command.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pairing {
    /// The oldest compatible transaction anywhere in the chip's queues
    /// (SSDsim's two-plane search).
    Queue,
    /// Only the head of a queue (strict FIFO: nothing overtakes).
    Head,
}

/// `order`: one arrival order for all user transactions of a chip, or
/// reads before writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FcfsOrder {
    /// Reads and writes in arrival order.
    Arrival,
    /// Reads before writes, each in arrival order.
    ReadsFirst,
}

impl Default for SsdsimParams {
    fn default() -> Self {
        SsdsimParams {
            order: FcfsOrder::Arrival,
            pairing: Pairing::Queue,
        }
    }
}

impl Params for SsdsimParams {}

/// Per-chip queues: user work (reads and writes, or reads only with
/// `reads-first`), user writes (`reads-first` only) and GC work.
#[derive(Debug, Clone, Default)]
struct ChipQueues {
    user: VecDeque<TxId>,
    writes: VecDeque<TxId>,
    gc: VecDeque<TxId>,
}

/// Strictly in-order (per chip) transaction scheduler.
pub struct SsdsimFcfs {
    geo: Geometry,
    reads_first: bool,
    head_only: bool,
    chips: Vec<ChipQueues>,
    pending: usize,
}

impl TxSchedulerType for SsdsimFcfs {
    const NAME: &'static str = "ssdsim-fcfs";
    const ABOUT: &'static str =
        "SSDsim's FCFS: each chip strictly in arrival order (head-of-line blocking)";
    type Params = SsdsimParams;

    fn new(p: SsdsimParams, g: &Geometry) -> Self {
        SsdsimFcfs {
            geo: *g,
            reads_first: p.order == FcfsOrder::ReadsFirst,
            head_only: p.pairing == Pairing::Head,
            chips: vec![ChipQueues::default(); g.chips() as usize],
            pending: 0,
        }
    }
}

impl SsdsimFcfs {
    /// The head of `q` if it is on a die in `dies` and can start.
    fn take_head(q: &mut VecDeque<TxId>, dies: u64, ctx: &PickCtx) -> Option<TxId> {
        let t = ctx.txs.get(*q.front()?);
        (dies & (1 << ctx.ftl.geo.die_in_chip(t.die)) != 0 && ctx.can_issue(t))
            .then(|| q.pop_front())?
    }
}

impl SsdsimFcfs {
    /// The oldest erase in `q` (behind a head that cannot start) that is
    /// on a die in `dies` and can start.
    fn take_erase(q: &mut VecDeque<TxId>, dies: u64, ctx: &PickCtx) -> Option<TxId> {
        let i = q.iter().skip(1).position(|&id| {
            let t = ctx.txs.get(id);
            t.kind == TxKind::Erase
                && dies & (1 << ctx.ftl.geo.die_in_chip(t.die)) != 0
                && ctx.can_issue(t)
        })?;
        q.remove(i + 1)
    }
}

impl TxScheduler for SsdsimFcfs {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        let c = &mut self.chips[self.geo.chip_of_die(tx.die) as usize];
        match (tx.origin, tx.kind) {
            (Origin::User | Origin::Mapping, TxKind::Program) if self.reads_first => {
                c.writes.push_back(id)
            }
            (Origin::User | Origin::Mapping | Origin::Update, _) => c.user.push_back(id),
            _ => c.gc.push_back(id),
        }
        self.pending += 1;
    }

    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        let chip = self.geo.chip_of_die(die);
        self.pick_chip(chip, 1 << self.geo.die_in_chip(die), ctx)
    }

    fn pick_chip(&mut self, chip: u32, dies: u64, ctx: &PickCtx) -> Option<TxId> {
        let c = &mut self.chips[chip as usize];
        let id = Self::take_head(&mut c.gc, dies, ctx)
            .or_else(|| {
                (ctx.ftl.gc_jobs_max > 1).then(|| Self::take_erase(&mut c.gc, dies, ctx))?
            })
            .or_else(|| Self::take_head(&mut c.user, dies, ctx))
            .or_else(|| {
                // Reads first: writes only once no read is waiting.
                c.user
                    .is_empty()
                    .then(|| Self::take_head(&mut c.writes, dies, ctx))?
            })?;
        self.pending -= 1;
        Some(id)
    }

    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        let c = &mut self.chips[self.geo.chip_of_die(die) as usize];
        let depth = if self.head_only { 1 } else { usize::MAX };
        for q in [&mut c.gc, &mut c.user, &mut c.writes] {
            if let Some(pos) = q
                .iter()
                .take(depth)
                .position(|&id| ctx.companion_ok(lead, ctx.txs.get(id), taken))
            {
                self.pending -= 1;
                return q.remove(pos);
            }
        }
        None
    }

    fn pending(&self) -> usize {
        self.pending
    }

    fn caps(&self) -> TxCaps {
        TxCaps {
            chip_queues: true,
            per_die: true,
            ..TxCaps::default()
        }
    }
}
