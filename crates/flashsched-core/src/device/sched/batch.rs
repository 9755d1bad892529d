//! Batch-structured request queues shared by PIQ and VIOS.
//!
//! Requests (the user transactions of one device request, split by chip into
//! sub-requests) are grouped into *chip batches* whose chip sets are disjoint
//! (PIQ, Gao et al. MSST'14; VIOS §3.3 "hierarchical-batch structured
//! queue"), and — for VIOS — each chip batch into *channel batches* whose
//! channel sets are disjoint, so the requests of a channel batch run in
//! completely independent channels. Sets are bit masks (`ChipSet`):
//! intersection and union are word-wise AND/OR, O(1) for up to 64 units.
//!
//! Reads and writes have separate batch lists; read batches go first, with
//! at most `max_read_batches` read batches released in a row while write
//! batches wait (bounded write starvation). Issue is per sub-request (a
//! request's pages on one chip, VIOS §3.3): scanning batches in order, channel
//! batch by channel batch, a sub-request is handed to its dies' ready queues
//! when those hold no released, unstarted work and no earlier request still
//! waits for that chip — so a request never overtakes an earlier conflicting
//! one on a chip they share, and one busy chip does not hold back the others.
//! GC transactions bypass the batches (per-die FIFO, served after released
//! user work).
//!
//! Released work starts on its die in release order (`StartOrder::InOrder`)
//! or reads first (`StartOrder::ReadsFirst`): a read may then be released
//! while a released write still waits on its die, and starts before it —
//! under chip-level busy before a released write on any die of its chip —
//! as SSDsim's controller serves a chip's queued reads before its writes
//! (the platform both papers ran on; `ssdsim.rs`).
//!
//! Released all at once, channel batches would be inert: a chip batch's
//! requests are on distinct chips, and each channel's bus serves its own
//! transfers in order whatever order the channels are visited in. With the
//! channel barrier (VIOS) a channel batch is released only once the earlier
//! channel batches of its chip batch have all been released, so requests
//! that share a channel with an earlier group wait for it: the batching
//! then decides what overlaps.

use std::collections::VecDeque;

use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::ftl::SpeedPref;
use crate::registry::Params;

use super::batch_queue::{BatchQueue, ChipSet};

mod release;
use serde::{Deserialize, Serialize};

/// One transaction of a waiting request, with the conflict unit and die
/// it had when queued. A transaction waiting in a batch list does not move
/// (a program is re-planned, a read re-resolved, only once picked, and is
/// then queued again as a new request), so a release scan reads these
/// instead of the transaction table: a request of 16 pages was looked up
/// 16 times for each of its chips in every scan (VIOS reproduction,
/// session 53).
#[derive(Debug, Clone, Copy)]
struct Member {
    id: TxId,
    unit: u32,
    die: u32,
}

/// One request waiting in a batch list.
#[derive(Debug, Clone)]
struct Req {
    txs: Vec<Member>,
    /// Chips whose sub-requests are not released yet.
    chips: ChipSet,
}

/// `order`: in which order a die (under chip-level busy: a chip) starts the
/// user work released to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StartOrder {
    /// In the order it was released (one FIFO per die).
    InOrder,
    /// Released reads before released writes, each in release order.
    ReadsFirst,
}

/// The parallel unit conflicts are detected on (PIQ: chip in the MSST'14
/// paper, die or plane in the TCAD'18 extension; VIOS: chip).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Conflicts are per chip.
    Chip,
    /// Conflicts are per die.
    Die,
    /// Conflicts are per plane.
    Plane,
}

/// The conflict unit `t` uses.
#[inline]
fn unit_of(unit: Unit, geo: &Geometry, t: &Tx) -> u32 {
    match unit {
        Unit::Chip => geo.chip_of_die(t.die),
        Unit::Die => t.die,
        Unit::Plane => t.plane,
    }
}

/// The scheduling core of PIQ and VIOS.
pub struct BatchCore {
    geo: Geometry,
    unit: Unit,
    reads: BatchQueue,
    writes: BatchQueue,
    reqs: Vec<Option<Req>>,
    free_reqs: Vec<usize>,
    /// User transactions pushed but not yet grouped into requests.
    staged: Vec<TxId>,
    /// Released user transactions per die (with `reads_first`: writes only).
    ready: Vec<VecDeque<TxId>>,
    /// Released user reads per die (`reads_first` only; else empty).
    ready_reads: Vec<VecDeque<TxId>>,
    /// `StartOrder::ReadsFirst`.
    reads_first: bool,
    gc: Vec<VecDeque<TxId>>,
    pending: usize,
    read_streak: u32,
    max_read_batches: u32,
    /// Global chip-state vector (VIOS §3.2): queued requests per chip.
    pub nr: Vec<u32>,
    /// Speed decided at release per transaction (variation-aware allocation).
    pref: Vec<SpeedPref>,
    variation_aware: bool,
    /// Block speed for a sub-request whose chip has no other queued request.
    free_pref: SpeedPref,
    /// A channel batch is released only once every earlier channel batch of
    /// its chip batch has been (VIOS: channel batches are dispatched one
    /// after another, each over independent channels).
    channel_barrier: bool,
    wakes: Vec<u32>,
    /// Sub-requests (request, chip) released in the current scan.
    released: Vec<(usize, u32)>,
    /// Chips of requests met so far in a release scan.
    claimed: ChipSet,
    /// Units with waiting work (`nr > 0`).
    live: ChipSet,
    /// The batches a release scan visits (`BatchQueue::stops`, reused).
    stops: Vec<u64>,
    /// Batches a release scan walks one by one before it visits only the
    /// batches in `stops` (`release::WALK_WHOLE`; tests vary it).
    walk_whole: usize,
    /// Something a release scan reads changed since the last one (requests
    /// came or were released, a die's released work ran out). A scan that
    /// releases nothing changes nothing, and the same inputs release
    /// nothing again: it is skipped.
    rescan: bool,
}

impl BatchCore {
    pub fn new(
        g: &Geometry,
        unit: Unit,
        channel_level: bool,
        variation_aware: bool,
        max_read_batches: u32,
    ) -> Self {
        let units = match unit {
            Unit::Chip => g.chips(),
            Unit::Die => g.dies(),
            Unit::Plane => g.planes(),
        };
        BatchCore {
            geo: *g,
            unit,
            reads: BatchQueue::new(channel_level),
            writes: BatchQueue::new(channel_level),
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            staged: Vec::new(),
            ready: vec![VecDeque::new(); g.dies() as usize],
            ready_reads: vec![VecDeque::new(); g.dies() as usize],
            reads_first: false,
            gc: vec![VecDeque::new(); g.dies() as usize],
            pending: 0,
            read_streak: 0,
            max_read_batches,
            nr: vec![0; units as usize],
            pref: Vec::new(),
            variation_aware,
            free_pref: SpeedPref::Slow,
            channel_barrier: false,
            wakes: Vec::new(),
            released: Vec::new(),
            claimed: ChipSet::with_capacity(units),
            live: ChipSet::with_capacity(units),
            stops: Vec::new(),
            walk_whole: release::WALK_WHOLE,
            rescan: true,
        }
    }

    /// Non-conflicting writes get `pref` instead of the slowest block.
    pub fn with_free_choice(mut self, pref: SpeedPref) -> Self {
        self.free_pref = pref;
        self
    }

    /// Start released work in `order` (see [`StartOrder`]).
    pub fn with_order(mut self, order: StartOrder) -> Self {
        self.reads_first = order == StartOrder::ReadsFirst;
        self
    }

    /// Release channel batches one after another (see `channel_barrier`).
    pub fn with_channel_barrier(mut self, on: bool) -> Self {
        self.channel_barrier = on;
        self
    }

    pub fn push(&mut self, id: TxId, tx: &Tx) {
        self.pending += 1;
        // GC and reclaim work waits per die, outside the user batches.
        if !tx.origin.foreground() {
            self.gc[tx.die as usize].push_back(id);
        } else {
            self.staged.push(id);
        }
    }

    pub fn pending(&self) -> usize {
        self.pending
    }

    /// Group staged transactions into requests (consecutive transactions of
    /// one owner and kind) and insert them into the batch lists.
    fn ingest(&mut self, ctx: &PickCtx) {
        self.rescan = true;
        let mut i = 0;
        let staged = std::mem::take(&mut self.staged);
        let n_units = self.nr.len() as u32;
        while i < staged.len() {
            let first = ctx.txs.get(staged[i]);
            let mut j = i + 1;
            while j < staged.len() {
                let t = ctx.txs.get(staged[j]);
                if t.owner != first.owner || t.kind != first.kind || t.origin != first.origin {
                    break;
                }
                j += 1;
            }
            let txs: Vec<Member> = staged[i..j]
                .iter()
                .map(|&id| {
                    let t = ctx.txs.get(id);
                    Member {
                        id,
                        unit: unit_of(self.unit, &self.geo, t),
                        die: t.die,
                    }
                })
                .collect();
            let mut chips = ChipSet::with_capacity(n_units);
            let mut channels = ChipSet::with_capacity(self.geo.channels);
            for m in &txs {
                chips.insert(m.unit);
                channels.insert(self.geo.channel_of_die(m.die));
            }
            for c in chips.iter() {
                self.nr[c as usize] += 1;
                self.live.insert(c);
            }
            let req = Req {
                txs,
                chips: chips.clone(),
            };
            let slot = match self.free_reqs.pop() {
                Some(s) => {
                    self.reqs[s] = Some(req);
                    s
                }
                None => {
                    self.reqs.push(Some(req));
                    self.reqs.len() - 1
                }
            };
            let q = if first.kind == TxKind::Read {
                &mut self.reads
            } else {
                &mut self.writes
            };
            q.insert(slot, &chips, &channels);
            i = j;
        }
        self.staged = staged;
        self.staged.clear();
    }

    /// Move released sub-requests' transactions to their dies' ready queues.
    fn hand_out(&mut self, ctx: &PickCtx) {
        // A later scan may release more (a chip this one claimed for a
        // request it released may go to the next request on it).
        self.rescan = true;
        let released = std::mem::take(&mut self.released);
        for &(r, c) in &released {
            // Variation-aware allocation (VIOS §3.3): a sub-request whose chip
            // still has other queued requests (NR > 1) gets a fast block.
            let fast = self.nr[c as usize] > 1;
            self.nr[c as usize] -= 1;
            if self.nr[c as usize] == 0 {
                self.live.remove(c);
            }
            let Some(req) = self.reqs[r].as_mut() else {
                continue;
            };
            let mut i = 0;
            while i < req.txs.len() {
                let Member { id, unit, .. } = req.txs[i];
                if unit != c {
                    i += 1;
                    continue;
                }
                let t = ctx.txs.get(id);
                debug_assert_eq!(unit, unit_of(self.unit, &self.geo, t), "a waiting tx moved");
                req.txs.swap_remove(i);
                if self.variation_aware && t.kind == TxKind::Program {
                    let k = id as usize;
                    if self.pref.len() <= k {
                        self.pref.resize(k + 1, SpeedPref::InOrder);
                    }
                    self.pref[k] = if fast {
                        SpeedPref::Fast
                    } else {
                        self.free_pref
                    };
                }
                if self.reads_first && t.kind == TxKind::Read {
                    self.ready_reads[t.die as usize].push_back(id);
                } else {
                    self.ready[t.die as usize].push_back(id);
                }
                self.wakes.push(t.die);
            }
            if req.txs.is_empty() {
                self.reqs[r] = None;
                self.free_reqs.push(r);
            }
        }
        self.released = released;
        self.released.clear();
    }

    pub fn prepare(&mut self, ctx: &PickCtx) {
        if !self.staged.is_empty() {
            self.ingest(ctx);
        }
        self.release(ctx);
    }

    pub fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        if !self.staged.is_empty() {
            self.prepare(ctx);
        }
        if self.reads_first {
            let q = &mut self.ready_reads[die as usize];
            if let Some(pos) = q.iter().position(|&id| ctx.can_issue(ctx.txs.get(id))) {
                let id = q.remove(pos)?;
                self.pending -= 1;
                if self.ready_reads[die as usize].is_empty() {
                    self.rescan = true;
                    self.release(ctx);
                }
                return Some(id);
            }
            if let Some(d) = self.chip_read_elsewhere(die, ctx) {
                // The chip takes one command: its released read goes before
                // this die's writes (and GC, which follows user work).
                self.wakes.push(d);
                return None;
            }
        }
        let q = &mut self.ready[die as usize];
        let pos = q.iter().position(|&id| ctx.can_issue(ctx.txs.get(id)));
        if let Some(pos) = pos {
            let id = q.remove(pos)?;
            self.pending -= 1;
            if self.ready[die as usize].is_empty() {
                self.rescan = true;
                self.release(ctx);
            }
            return Some(id);
        }
        let q = &mut self.gc[die as usize];
        let pos = q.iter().position(|&id| ctx.can_issue(ctx.txs.get(id)))?;
        self.pending -= 1;
        q.remove(pos)
    }

    /// Under chip-level busy, another free die of `die`'s chip holding a
    /// released read that can start: woken, it takes the read (the chip is
    /// free, since `die` is being offered it). A busy die (one in a group of
    /// interleaved commands started this instant) does not hold `die` back:
    /// it could not take its read now, and declining for it would only idle
    /// the chip (and, offered again and again, never end).
    fn chip_read_elsewhere(&self, die: u32, ctx: &PickCtx) -> Option<u32> {
        if !ctx.chip_busy {
            return None;
        }
        let dpc = self.geo.dies_per_chip;
        let first = die - die % dpc;
        (first..first + dpc).find(|&d| {
            d != die
                && ctx.die_free(d)
                && self.ready_reads[d as usize]
                    .iter()
                    .any(|&id| ctx.can_issue(ctx.txs.get(id)))
        })
    }

    pub fn wakes(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.wakes);
    }

    /// The oldest released (else GC) transaction of `die` that may join the
    /// multi-plane command led by `lead`: released work is already cleared
    /// to run on this die, so the controller may combine it.
    pub fn pick_companion(
        &mut self,
        die: u32,
        lead: &Tx,
        taken: u64,
        ctx: &PickCtx,
    ) -> Option<TxId> {
        for (k, q) in [
            &mut self.ready_reads[die as usize],
            &mut self.ready[die as usize],
            &mut self.gc[die as usize],
        ]
        .into_iter()
        .enumerate()
        {
            if let Some(pos) = q
                .iter()
                .position(|&id| ctx.companion_ok(lead, ctx.txs.get(id), taken))
            {
                self.pending -= 1;
                let id = q.remove(pos);
                // Released work running out is news for the next scan.
                self.rescan |= k < 2 && q.is_empty();
                return id;
            }
        }
        None
    }

    pub fn alloc_pref(&mut self, id: TxId) -> SpeedPref {
        self.pref
            .get_mut(id as usize)
            .map(|p| std::mem::replace(p, SpeedPref::InOrder))
            .unwrap_or(SpeedPref::InOrder)
    }
}

/// What tells the batching schedulers (PIQ, VIOS) apart: name, tunables,
/// and how they set up the shared core.
pub trait BatchPolicy: Send + 'static {
    /// Name in configs and on the command line.
    const NAME: &'static str;
    /// One line for listings.
    const ABOUT: &'static str;
    /// Its `[controller.<NAME>]` table.
    type Params: Params;
    /// The core this policy runs.
    fn core(p: Self::Params, g: &Geometry) -> BatchCore;
}

/// A transaction scheduler made of a [`BatchCore`] set up by policy `P`.
pub struct Batched<P: BatchPolicy> {
    core: BatchCore,
    policy: std::marker::PhantomData<P>,
}

impl<P: BatchPolicy> TxSchedulerType for Batched<P> {
    const NAME: &'static str = P::NAME;
    const ABOUT: &'static str = P::ABOUT;
    type Params = P::Params;

    fn new(p: P::Params, g: &Geometry) -> Self {
        Batched {
            core: P::core(p, g),
            policy: std::marker::PhantomData,
        }
    }
}

#[cfg(test)]
impl<P: BatchPolicy> Batched<P> {
    /// Walk `n` batches of a list one by one before visiting only those
    /// where something can happen (`release.rs`).
    pub(super) fn walk_whole(&mut self, n: usize) {
        self.core.walk_whole = n;
    }
}

impl<P: BatchPolicy> TxScheduler for Batched<P> {
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
            coordinates: true,
            ..TxCaps::default()
        }
    }
    fn prepare(&mut self, ctx: &PickCtx) {
        self.core.prepare(ctx);
    }
    fn wakes(&mut self, out: &mut Vec<u32>) {
        self.core.wakes(out);
    }
    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        self.core.pick_companion(die, lead, taken, ctx)
    }
    fn alloc_pref(&mut self, id: TxId, _tx: &Tx) -> SpeedPref {
        self.core.alloc_pref(id)
    }
}
