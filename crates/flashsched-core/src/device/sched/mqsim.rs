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

use super::lanes::Lanes;
use super::{companion_tag, PickCtx, TxCaps, TxScheduler, TxSchedulerType};
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

/// MQSim's priority out-of-order transaction scheduler.
pub struct MqsimPriority {
    geo: Geometry,
    /// Per chip, each queue in lanes by (plane, origin) (`lanes.rs`: the
    /// first transaction that can start is found without scanning those
    /// that cannot).
    queues: Vec<[Lanes; QUEUES]>,
    /// Transactions queued so far (their arrival numbers).
    arrivals: u64,
    pending: usize,
    /// The queues the last command was drawn from (for its companions).
    source: (Q, Option<Q>),
    /// The lanes of each set of a chip's dies (`Lanes::die_mask`), when a
    /// chip's queue has at most 64 lanes (else empty).
    die_lanes: Vec<u64>,
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
            arrivals: 0,
            pending: 0,
            source: (Q::UserRead, None),
            die_lanes: match g.dies_per_chip * g.planes_per_die <= Lanes::PLANES_IN_WORD {
                true => (0..1u64 << g.dies_per_chip)
                    .map(|dies| Lanes::die_mask(dies, g.planes_per_die))
                    .collect(),
                false => Vec::new(),
            },
        }
    }
}

impl MqsimPriority {
    /// Remove entry `pos` of `lane` of `queue` of `chip`.
    fn remove(&mut self, chip: u32, queue: Q, lane: usize, pos: usize) -> Option<TxId> {
        let id = self.queues[chip as usize][queue as usize].remove(lane, pos)?;
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
        let lanes = &self.queues[chip as usize][queue as usize];
        let ok = |id| ctx.can_issue(ctx.txs.get(id));
        let lane = match self.die_lanes.get(dies as usize) {
            Some(&mask) => lanes.first_in(mask, ok),
            None => lanes.first(dies, self.geo.planes_per_die, ok),
        }?;
        self.remove(chip, queue, lane, 0)
    }
}

impl TxScheduler for MqsimPriority {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        let chip = self.geo.chip_of_die(tx.die);
        let queue = queue_of(tx);
        // The plane's index in its chip (a chip's planes are numbered
        // together).
        let plane = tx.plane - chip * self.geo.dies_per_chip * self.geo.planes_per_die;
        let lane = Lanes::lane(plane, tx.origin as u8);
        self.arrivals += 1;
        // What a multi-plane companion must share with its lead.
        let tag = companion_tag(&self.geo, tx);
        self.queues[chip as usize][queue as usize].push(lane, self.arrivals, id, tag);
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
        let lead_die = self.geo.die_in_chip(die);
        // Lanes of the lead's die on a plane not taken yet.
        let free = |lane: usize| {
            let p = Lanes::plane_of(lane);
            p / ppd == lead_die && taken & (1 << (p % ppd)) == 0
        };
        // Queued transactions at another offset than the lead's cannot join
        // it: passed over by their tags, unread.
        let offset = ctx.companion_offset(lead);
        let tag_ok = |tag| offset.is_none_or(|o| o == tag);
        let (first, second) = self.source;
        for queue in std::iter::once(first).chain(second) {
            let lanes = &self.queues[chip as usize][queue as usize];
            if !lanes.any(free) {
                continue;
            }
            let ok = |id, tag| {
                let cand = ctx.txs.get(id);
                debug_assert_eq!(tag, companion_tag(&self.geo, cand), "a queued offset moved");
                ctx.companion_ok(lead, cand, taken)
            };
            if let Some((lane, pos)) = lanes.find(free, tag_ok, ok) {
                return self.remove(chip, queue, lane, pos);
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
