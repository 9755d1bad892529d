//! `mqsim-priority`: the transaction scheduling MQSim ships with
//! (`Transaction_Scheduling_Policy = PRIORITY_OUT_OF_ORDER`; its
//! `TSU_OutofOrder`/`TSU_Priority_OutOfOrder` and `TSU_Base` sources;
//! shared/reference/platforms.md), modelled here:
//!
//! - per chip, one arrival-order queue per source and type: user reads, GC
//!   reads, user writes, GC writes, GC erases;
//! - a chip is offered work only when it is idle (all dies, data-outs
//!   included; the device's `busy_unit = "chip"`), and then tries reads,
//!   else writes, else erases;
//! - reads: user reads first and GC reads after them in the same command;
//!   when GC is urgent (always, unless GC is preemptive and every plane of
//!   the chip is above the hard threshold), GC reads first — and a chip
//!   with GC writes or erases waiting takes no user reads before them;
//!   otherwise user writes waiting keep GC reads back;
//! - writes: the same with user and GC writes; urgent GC erases waiting
//!   keep user writes back;
//! - a command takes the die of the first transaction of the first queue,
//!   and, with multi-plane commands on, transactions of that die on other
//!   planes from that queue, then from the second (`PickCtx::companion_ok`
//!   holds the address rule; MQSim's is the ONFI same-page rule).
//!
//! MQSim's decision at channel-idle instants (a chip is offered work only
//! when its channel is idle with no data-out waiting; waiting data-outs go
//! by source) is the device's `controller.dispatch = "channel-idle"`, which
//! `mqsim-default` sets; with the default `unit-free` a chip is offered work
//! when it frees and its transfers queue on the channel.

use std::collections::VecDeque;

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Origin, Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::registry::NoParams;

/// The queues of one chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Q {
    /// Translation-page reads (cached mapping table misses): served first.
    MapRead = 0,
    UserRead,
    GcRead,
    UserWrite,
    GcWrite,
    GcErase,
}

const QUEUES: usize = 6;

fn queue_of(t: &Tx) -> Q {
    match (t.kind, t.origin, t.copyback) {
        (TxKind::Read, Origin::User | Origin::Update, _) => Q::UserRead,
        (TxKind::Read, Origin::Mapping, _) => Q::MapRead,
        // A copyback move programs: it waits with the GC writes.
        (TxKind::Read, _, true) => Q::GcWrite,
        (TxKind::Read, _, false) => Q::GcRead,
        // Translation write-backs wait with the user writes (MQSim queues
        // them separately but its scheduler never serves that queue).
        (TxKind::Program, Origin::User | Origin::Mapping, _) => Q::UserWrite,
        (TxKind::Program, _, _) => Q::GcWrite,
        (TxKind::Erase, _, _) => Q::GcErase,
    }
}

/// A queued transaction with its die in the chip and plane in the die,
/// so scans can pass over transactions of other dies or taken planes
/// without reading them.
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: TxId,
    die: u8,
    plane: u8,
}

/// MQSim's priority out-of-order transaction scheduler.
pub struct MqsimPriority {
    geo: Geometry,
    queues: Vec<[VecDeque<Entry>; QUEUES]>,
    /// Queued transactions per (queue, plane): lets a companion search skip
    /// a queue with nothing on the lead's free planes instead of scanning
    /// it (exact: when the scan runs, it decides).
    on_plane: Vec<u32>,
    pending: usize,
    /// The queues the last command was drawn from (for its companions).
    source: (Q, Option<Q>),
}

impl TxSchedulerType for MqsimPriority {
    const NAME: &'static str = "mqsim-priority";
    const ABOUT: &'static str =
        "MQSim's PRIORITY_OUT_OF_ORDER: per-chip queues, reads > writes > erases, GC by urgency";
    type Params = NoParams;

    fn new(_: NoParams, g: &Geometry) -> Self {
        MqsimPriority {
            geo: *g,
            queues: vec![Default::default(); g.chips() as usize],
            on_plane: vec![0; QUEUES * g.planes() as usize],
            pending: 0,
            source: (Q::UserRead, None),
        }
    }
}

impl MqsimPriority {
    /// Index of `plane`'s count in `queue` (a plane's counts side by side).
    #[inline]
    fn slot(queue: Q, plane: u32) -> usize {
        plane as usize * QUEUES + queue as usize
    }

    /// Remove entry `pos` of `queue` of `chip`, keeping the counts.
    fn remove(&mut self, chip: u32, queue: Q, pos: usize, ctx: &PickCtx) -> Option<TxId> {
        let q = &mut self.queues[chip as usize][queue as usize];
        // Mostly the head: no shifting of the others.
        let id = if pos == 0 {
            q.pop_front()
        } else {
            q.remove(pos)
        }?
        .id;
        self.on_plane[Self::slot(queue, ctx.txs.get(id).plane)] -= 1;
        self.pending -= 1;
        Some(id)
    }

    /// The (first, second) queues a read or write command of `chip` draws
    /// from, or `None` if that type must wait.
    fn sources(&self, chip: u32, reads: bool, urgent: bool) -> Option<(Q, Option<Q>)> {
        let q = &self.queues[chip as usize];
        let has = |x: Q| !q[x as usize].is_empty();
        let (user, gc) = if reads {
            (Q::UserRead, Q::GcRead)
        } else {
            (Q::UserWrite, Q::GcWrite)
        };
        // Mapping data first, then urgent GC or user reads beside it.
        if reads && has(Q::MapRead) {
            let second = if urgent && has(gc) {
                Some(gc)
            } else {
                has(user).then_some(user)
            };
            return Some((Q::MapRead, second));
        }
        if urgent {
            if has(gc) {
                return Some((gc, has(user).then_some(user)));
            }
            // GC work further on (writes, erases) keeps user work back.
            let later = if reads {
                has(Q::GcWrite) || has(Q::GcErase)
            } else {
                has(Q::GcErase)
            };
            if later {
                return None;
            }
            return has(user).then_some((user, None));
        }
        if has(user) {
            return Some((user, has(gc).then_some(gc)));
        }
        // Preemptive GC: reads of GC wait while user writes wait.
        if reads && has(Q::UserWrite) {
            return None;
        }
        has(gc).then_some((gc, None))
    }

    /// The first transaction of `queue` on a die in `dies` that can start.
    fn take_first(&mut self, chip: u32, queue: Q, dies: u64, ctx: &PickCtx) -> Option<TxId> {
        let q = &self.queues[chip as usize][queue as usize];
        let ok = |e: &Entry| dies & (1 << e.die) != 0 && ctx.can_issue(ctx.txs.get(e.id));
        // Mostly the head (asked first: a queue's iterator costs more).
        let pos = match q.front() {
            Some(e) if ok(e) => 0,
            _ => q.iter().skip(1).position(ok)? + 1,
        };
        self.remove(chip, queue, pos, ctx)
    }
}

impl TxScheduler for MqsimPriority {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        let chip = self.geo.chip_of_die(tx.die);
        let queue = queue_of(tx);
        // Dies per chip and planes per die are at most 64 (geometry limits).
        let entry = Entry {
            id,
            die: self.geo.die_in_chip(tx.die) as u8,
            plane: self.geo.plane_in_die(tx.plane) as u8,
        };
        self.queues[chip as usize][queue as usize].push_back(entry);
        self.on_plane[Self::slot(queue, tx.plane)] += 1;
        self.pending += 1;
    }

    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        let chip = self.geo.chip_of_die(die);
        self.pick_chip(chip, 1 << self.geo.die_in_chip(die), ctx)
    }

    fn pick_chip(&mut self, chip: u32, dies: u64, ctx: &PickCtx) -> Option<TxId> {
        let urgent = ctx.gate.chip_urgent(chip, ctx.ftl);
        for reads in [true, false] {
            if let Some((first, second)) = self.sources(chip, reads, urgent) {
                let lead = self
                    .take_first(chip, first, dies, ctx)
                    .or_else(|| second.and_then(|s| self.take_first(chip, s, dies, ctx)));
                if let Some(id) = lead {
                    self.source = (first, second);
                    return Some(id);
                }
            }
        }
        let id = self.take_first(chip, Q::GcErase, dies, ctx)?;
        self.source = (Q::GcErase, None);
        Some(id)
    }

    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        let chip = self.geo.chip_of_die(die);
        let ppd = self.geo.planes_per_die;
        let (first, second) = self.source;
        for queue in std::iter::once(first).chain(second) {
            // Anything queued on a free plane of the lead's die?
            let any = (0..ppd).any(|k| {
                taken & (1 << k) == 0 && self.on_plane[Self::slot(queue, die * ppd + k)] > 0
            });
            if !any {
                continue;
            }
            let q = &self.queues[chip as usize][queue as usize];
            let lead_die = self.geo.die_in_chip(die) as u8;
            if let Some(pos) = q.iter().position(|e| {
                e.die == lead_die
                    && taken & (1 << e.plane) == 0
                    && ctx.companion_ok(lead, ctx.txs.get(e.id), taken)
            }) {
                return self.remove(chip, queue, pos, ctx);
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
