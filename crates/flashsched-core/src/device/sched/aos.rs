//! AOS — adaptive out-of-order scheduling (P. Li et al., IMECS'15, §III).
//!
//! - Pending queues (§III): read, program and erase queues in arrival order.
//!   GC page reads wait in the read queue, GC programs (and copyback moves,
//!   which program) in the program queue.
//! - Conflict detection (§III-A, Eqs. 1–4): a re-ordering set (RS) of
//!   2 × chips entries, one chip-level request set per chip classifier
//!   (channel, chip). A candidate conflicts with an RS entry on its chip if
//!   both are of the same type and hit the same (die, plane) (Eq. 4), or are
//!   of different types on the same die; different dies interleave and
//!   same-type requests on different planes share the die (multiplane).
//! - Adaptive dispatching (§III-B, Algorithms 1–3): with the dispatching
//!   region (user programs waiting, capacity `dispatch_region_pages`)
//!   full → program preference; else with no pending read → erase
//!   preference; else read preference. Reads under read preference enter
//!   the RS without a conflict check (Alg. 1 lines 2–5); everything else is
//!   checked. Data hazards: a program is held back while an older read of the
//!   same logical page is queued (PAR) and an erase while a queued read
//!   targets its block (EAR).
//! - Re-ordering (§III-C): when dies are offered RS work, channel-level sets
//!   are visited round-robin and, within a channel, chip-level sets by
//!   lowest priority level; a chip set's priority rises by one each time it
//!   is served and reads are left behind, and resets when it empties.
//!
//! - Issue (§III-C steps 2–4, `refill = "empty"`, the default): the RS is
//!   filled only when it is empty. It then empties into per-chip flash
//!   controller queues in rounds: channel-level sets are visited
//!   round-robin, one chip-level set per channel per visit (the one with the
//!   lowest priority), so chips of different channels alternate in issue
//!   (and hence bus) order. A chip-level set goes to its controller when the
//!   controller's queue is empty: programs and erases all at once (the set
//!   is deleted), reads without conflicts among them (at most one per
//!   (die, plane)); reads left behind raise the set's priority and go in a
//!   later round. The controller starts its queue's requests on their dies
//!   and combines same-type requests on different planes of a die into one
//!   multi-plane command (when the device's multi-plane rule allows it).
//! - Pending queues hold at most `queue_limit` (512, §V) requests each that
//!   dispatching looks at; later arrivals wait behind them.
//!
//! Assumptions (docs/devsched.md): with `refill = "top-up"` (the earlier
//! reading, kept as an option) "issued to the flash controller" means the
//! die starts the request and the RS is refilled whenever an idle die finds
//! no RS work and the RS has room; each dispatch scans at most 8 ×
//! RS-capacity candidates rejected for conflicts per queue (bounded work
//! per event).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use serde::{Deserialize, Serialize};

use super::lanes::{Lanes, ScanScratch, Visit};
use super::{PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Origin, Tx, TxId, TxKind};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::Geometry;
use crate::registry::{check_range, Params};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Read,
    Program,
    Erase,
}

/// Arrival numbers start here and go up at the back of a queue, down at
/// its front.
const FIRST_ARRIVAL: u64 = 1 << 62;

fn class(t: &Tx) -> Class {
    match t.kind {
        TxKind::Read if t.copyback => Class::Program,
        TxKind::Read => Class::Read,
        TxKind::Program => Class::Program,
        TxKind::Erase => Class::Erase,
    }
}

/// Adaptive out-of-order scheduler.
pub struct Aos {
    geo: Geometry,
    /// Pending queues, as lanes by plane and origin, which with the queue's
    /// type fix what `can_issue` reads (`lanes.rs`).
    reads: Lanes,
    programs: Lanes,
    /// GC copies wait in their own part of the program queue and are
    /// dispatched first: user programs may be waiting for the space they free.
    gc_programs: Lanes,
    erases: Lanes,
    /// Arrival numbers: the last given at the back of a queue, and at its
    /// front (`cancel_unissuable`), from `FIRST_ARRIVAL` outwards.
    back: u64,
    front: u64,
    /// A dispatch's merge of lanes (reused).
    scratch: ScanScratch,
    /// Chip-level request sets (RS entries per chip, in dispatch order).
    rs: Vec<VecDeque<TxId>>,
    rs_len: usize,
    rs_cap: usize,
    prio: Vec<u32>,
    rr_channel: u32,
    /// User programs waiting (dispatching-region occupancy) and its capacity.
    region_used: usize,
    region_cap: usize,
    /// Queued (not started) reads per logical page / per block (hazards).
    reads_by_lpn: FxHashMap<u32, u32>,
    reads_by_block: FxHashMap<u32, u32>,
    pending: usize,
    wakes: Vec<u32>,
    chip_order: Vec<u32>,
    multiplane: bool,
    refill: Refill,
    queue_limit: usize,
    /// Per-chip flash controller queues (`refill = "empty"`), in issue order.
    ctrl: Vec<VecDeque<TxId>>,
    /// The last dispatch moved nothing, with this `PickCtx::user_only`, and
    /// nothing it reads has changed since. Within an instant's decide pass
    /// only this scheduler's own queues and starts change what a dispatch
    /// reads; each pass (after events) starts afresh. A chip whose queues
    /// could not start anything was otherwise dispatched for by every die
    /// offered work (Postmark at queue depth 64 on `intel-750`:
    /// BENCHMARKS.md, session 52).
    fruitless: Option<bool>,
}

/// `refill`: when the re-ordering set takes new requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refill {
    /// As written (§III): only when the RS is empty; the RS empties into
    /// per-chip controller queues in rounds.
    Empty,
    /// Whenever a die finds no RS work and the RS has room; an entry stays
    /// in the RS until its die starts it.
    TopUp,
}

/// `[controller.aos]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AosParams {
    /// Dispatching region (program pending queue capacity) in pages;
    /// 0 = 1 MiB worth of pages (half of the paper's 2 MB write buffer).
    pub dispatch_region_pages: u32,
    /// Re-ordering set capacity per chip (the paper: 2 × chips entries).
    pub rs_per_chip: u32,
    /// Same-type requests on different planes of one die may share the
    /// re-ordering set (multiplane sharing, §III-A Eq. 4).
    pub multiplane: bool,
    /// When the RS takes new requests: `empty` (as written) or `top-up`.
    pub refill: Refill,
    /// Requests per pending queue that dispatching considers (the paper
    /// assumes 512 entries per queue, §V); 0 = unlimited.
    pub queue_limit: u32,
}

impl Default for AosParams {
    fn default() -> Self {
        AosParams {
            dispatch_region_pages: 0,
            rs_per_chip: 2,
            multiplane: true,
            refill: Refill::Empty,
            queue_limit: 512,
        }
    }
}

impl Params for AosParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "rs_per_chip", self.rs_per_chip as f64, 1.0, 1e6)?;
        check_range(key, "queue_limit", self.queue_limit as f64, 0.0, 1e9)
    }
}

impl TxSchedulerType for Aos {
    const NAME: &'static str = "aos";
    const ABOUT: &'static str = "AOS: adaptive out-of-order dispatch through a re-ordering set";
    type Params = AosParams;

    fn new(c: AosParams, g: &Geometry) -> Self {
        let region_cap = if c.dispatch_region_pages > 0 {
            c.dispatch_region_pages as usize
        } else {
            ((1usize << 20) / g.page_size as usize).max(1)
        };
        Aos {
            geo: *g,
            reads: Lanes::default(),
            programs: Lanes::default(),
            gc_programs: Lanes::default(),
            erases: Lanes::default(),
            back: FIRST_ARRIVAL,
            front: FIRST_ARRIVAL,
            scratch: ScanScratch::default(),
            rs: vec![VecDeque::new(); g.chips() as usize],
            rs_len: 0,
            rs_cap: c.rs_per_chip as usize * g.chips() as usize,
            prio: vec![0; g.chips() as usize],
            rr_channel: 0,
            region_used: 0,
            region_cap,
            reads_by_lpn: FxHashMap::default(),
            reads_by_block: FxHashMap::default(),
            pending: 0,
            wakes: Vec::new(),
            chip_order: Vec::new(),
            multiplane: c.multiplane,
            refill: c.refill,
            queue_limit: if c.queue_limit == 0 {
                usize::MAX
            } else {
                c.queue_limit as usize
            },
            ctrl: vec![VecDeque::new(); g.chips() as usize],
            fruitless: None,
        }
    }
}

impl Aos {
    fn chip(&self, t: &Tx) -> usize {
        self.geo.chip_of_die(t.die) as usize
    }

    /// Eq. 4 plus die interleaving: requests on different dies of a chip
    /// never conflict; same-type requests on different planes of a die share
    /// it (multiplane) unless `controller.aos.multiplane = false`.
    fn conflicts(&self, t: &Tx, ctx: &PickCtx) -> bool {
        let c = class(t);
        self.rs[self.chip(t)].iter().any(|&id| {
            let e = ctx.txs.get(id);
            e.die == t.die && (!self.multiplane || class(e) != c || e.plane == t.plane)
        })
    }

    fn hazard(&self, t: &Tx, ctx: &PickCtx) -> bool {
        match class(t) {
            // PAR: an older read of this logical page is still queued.
            Class::Program => {
                t.origin == Origin::User && self.reads_by_lpn.get(&t.lpn).is_some_and(|&n| n > 0)
            }
            // EAR: a queued read still targets the victim block — unless
            // blocking GC holds such reads until the erase (they then find
            // the data where GC moved it, as any read of an erased block).
            Class::Erase => {
                self.reads_by_block.get(&t.ppn).is_some_and(|&n| n > 0)
                    && !ctx.gate.holds_user(t.plane)
            }
            Class::Read => false,
        }
    }

    fn add_rs(&mut self, id: TxId, t: &Tx) {
        let chip = self.chip(t);
        self.rs[chip].push_back(id);
        self.rs_len += 1;
        if class(t) == Class::Program && t.origin == Origin::User {
            self.region_used -= 1;
        }
    }

    /// Queue `id` (transaction `t`) last in its pending queue.
    fn push_back(&mut self, which: Class, gc: bool, id: TxId, t: &Tx) {
        self.back += 1;
        let (lane, seq) = (Lanes::lane(t.plane, t.origin as u8), self.back);
        // (AOS does not search its lanes by tag.)
        self.queue(which, gc).push(lane, seq, id, 0);
    }

    /// Queue `id` (transaction `t`) first in its pending queue.
    fn push_front(&mut self, which: Class, gc: bool, id: TxId, t: &Tx) {
        self.front -= 1;
        let (lane, seq) = (Lanes::lane(t.plane, t.origin as u8), self.front);
        self.queue(which, gc).push_front(lane, seq, id, 0);
    }

    fn queue(&mut self, which: Class, gc: bool) -> &mut Lanes {
        match which {
            Class::Read => &mut self.reads,
            Class::Program if gc => &mut self.gc_programs,
            Class::Program => &mut self.programs,
            Class::Erase => &mut self.erases,
        }
    }

    /// Move candidates of one queue into the RS (checked unless `unchecked`).
    fn dispatch_queue(&mut self, which: Class, unchecked: bool, ctx: &PickCtx) {
        if which == Class::Program {
            self.dispatch_from(which, true, unchecked, ctx);
        }
        self.dispatch_from(which, false, unchecked, ctx);
    }

    fn dispatch_from(&mut self, which: Class, gc: bool, unchecked: bool, ctx: &PickCtx) {
        // Bounded look-ahead: at most this many startable candidates rejected
        // for conflicts/hazards per dispatch (ones that cannot start yet, e.g.
        // programs waiting for GC space, are skipped and not counted).
        let limit = 8 * self.rs_cap;
        // The pending queue's entries (§V: 512): startable user requests
        // past them are not looked at. Ones that cannot start yet are
        // passed over without counting (they would otherwise fill the
        // window and hide the GC work that frees them); GC work is the
        // controller's own and has no such limit.
        let window = if gc { usize::MAX } else { self.queue_limit };
        if self.rs_len >= self.rs_cap || self.queue(which, gc).is_empty() {
            return;
        }
        let mut q = std::mem::take(self.queue(which, gc));
        let mut scratch = std::mem::take(&mut self.scratch);
        let (mut rejected, mut seen) = (0, 0);
        // The startable entries in arrival order (`lanes.rs`).
        q.scan(
            &mut scratch,
            |id| ctx.can_issue(ctx.txs.get(id)),
            |id| {
                if self.rs_len >= self.rs_cap || rejected >= limit || seen >= window {
                    return Visit::Stop;
                }
                seen += 1;
                let t = ctx.txs.get(id);
                if unchecked || (!self.conflicts(t, ctx) && !self.hazard(t, ctx)) {
                    self.add_rs(id, t);
                    Visit::Take
                } else {
                    rejected += 1;
                    Visit::Keep
                }
            },
        );
        self.scratch = scratch;
        *self.queue(which, gc) = q;
    }

    /// Adaptive request dispatching (Algorithms 1–3), then wake the dies
    /// holding RS work in re-ordering order.
    fn dispatch(&mut self, ctx: &PickCtx) {
        if self.rs_len >= self.rs_cap || (self.refill == Refill::Empty && self.rs_len > 0) {
            return;
        }
        let before = self.rs_len;
        if self.fruitless == Some(ctx.user_only) {
            // Debug builds dispatch anyway: it must move nothing.
            if cfg!(debug_assertions) {
                self.dispatch_queues(ctx);
                assert_eq!(self.rs_len, before, "a fruitless dispatch moved work");
            }
            return;
        }
        self.dispatch_queues(ctx);
        // Nothing moved: until something changes (`changed`), nor will a
        // dispatch at this instant with the same context.
        self.fruitless = (self.rs_len == before).then_some(ctx.user_only);
        if self.rs_len > before {
            match self.refill {
                Refill::TopUp => self.reorder_wakes(ctx),
                Refill::Empty => self.issue_rounds(ctx),
            }
        }
    }

    /// Something a dispatch reads changed (the queues, the RS, a start):
    /// the next one is not known to be fruitless.
    #[inline]
    fn changed(&mut self) {
        self.fruitless = None;
    }

    /// The pending queues into the RS, by the current preference.
    fn dispatch_queues(&mut self, ctx: &PickCtx) {
        if self.region_used >= self.region_cap {
            // Alg. 2: program preference.
            self.dispatch_queue(Class::Program, false, ctx);
            self.dispatch_queue(Class::Read, false, ctx);
            self.dispatch_queue(Class::Erase, false, ctx);
        } else if self.reads.is_empty() {
            // Alg. 3: erase preference.
            self.dispatch_queue(Class::Erase, false, ctx);
            self.dispatch_queue(Class::Program, false, ctx);
        } else {
            // Alg. 1: read preference.
            self.dispatch_queue(Class::Read, true, ctx);
            self.dispatch_queue(Class::Program, false, ctx);
            self.dispatch_queue(Class::Erase, false, ctx);
        }
    }

    /// §III-C steps 2–4: channel-level sets round-robin, one chip-level set
    /// per channel per visit (lowest priority first), each to its
    /// controller's queue when that queue is empty; the dies of what was
    /// issued are woken in issue order.
    fn issue_rounds(&mut self, ctx: &PickCtx) {
        let g = self.geo;
        let cpc = g.chips_per_channel;
        let mut visited = std::mem::take(&mut self.chip_order);
        visited.clear();
        loop {
            let mut any = false;
            for k in 0..g.channels {
                let ch = (self.rr_channel + k) % g.channels;
                let next = (ch * cpc..(ch + 1) * cpc)
                    .filter(|&c| {
                        !self.rs[c as usize].is_empty()
                            && self.ctrl[c as usize].is_empty()
                            && !visited.contains(&c)
                    })
                    .min_by_key(|&c| (self.prio[c as usize], c));
                if let Some(c) = next {
                    visited.push(c);
                    self.issue_chip(c as usize, ctx);
                    any = true;
                }
            }
            if !any {
                break;
            }
        }
        self.rr_channel = (self.rr_channel + 1) % g.channels;
        self.chip_order = visited;
    }

    /// One round of chip-level set `chip` into its controller queue: every
    /// program and erase, and the reads without conflicts among them (one
    /// per (die, plane)); reads left behind raise the set's priority.
    fn issue_chip(&mut self, chip: usize, ctx: &PickCtx) {
        self.changed();
        let set = std::mem::take(&mut self.rs[chip]);
        let mut left = VecDeque::new();
        for id in set {
            let t = ctx.txs.get(id);
            let clash = class(t) == Class::Read
                && self.ctrl[chip].iter().any(|&e| {
                    let o = ctx.txs.get(e);
                    o.die == t.die && (o.plane == t.plane || !self.multiplane)
                });
            if clash {
                left.push_back(id);
            } else {
                self.ctrl[chip].push_back(id);
                self.rs_len -= 1;
                self.wakes.push(t.die);
            }
        }
        if left.is_empty() {
            self.prio[chip] = 0;
        } else {
            self.prio[chip] += 1;
        }
        self.rs[chip] = left;
    }

    /// The controller queue entry `die` should run next: its oldest read,
    /// else its oldest other request.
    fn ctrl_entry(&self, chip: usize, die: u32, ctx: &PickCtx) -> Option<usize> {
        let q = &self.ctrl[chip];
        let ok = |id: TxId| {
            let t = ctx.txs.get(id);
            t.die == die && ctx.can_issue(t)
        };
        q.iter()
            .position(|&id| ok(id) && class(ctx.txs.get(id)) == Class::Read)
            .or_else(|| q.iter().position(|&id| ok(id)))
    }

    /// `refill = "empty"`: take `die`'s next request from its controller
    /// queue; an emptied controller takes its chip's next round, and an
    /// emptied RS is refilled.
    fn pick_ctrl(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        let chip = self.geo.chip_of_die(die) as usize;
        if self.rs_len == 0 {
            self.dispatch(ctx);
        }
        let pos = self.ctrl_entry(chip, die, ctx)?;
        let id = self.ctrl[chip].remove(pos)?;
        self.took(id, ctx);
        if self.ctrl[chip].is_empty() {
            if self.rs_len == 0 {
                self.dispatch(ctx);
            } else {
                self.issue_rounds(ctx);
            }
        }
        Some(id)
    }

    fn took(&mut self, id: TxId, ctx: &PickCtx) {
        self.changed();
        self.pending -= 1;
        let t = *ctx.txs.get(id);
        self.forget_read(&t);
    }

    /// Channel-level sets round-robin; chip-level sets by lowest priority.
    fn reorder_wakes(&mut self, ctx: &PickCtx) {
        let g = self.geo;
        let mut order = std::mem::take(&mut self.chip_order);
        for k in 0..g.channels {
            let ch = (self.rr_channel + k) % g.channels;
            order.clear();
            order.extend(
                (ch * g.chips_per_channel..(ch + 1) * g.chips_per_channel)
                    .filter(|&c| !self.rs[c as usize].is_empty()),
            );
            order.sort_by_key(|&c| (self.prio[c as usize], c));
            for &c in &order {
                // Duplicates are harmless: the device marks a die once.
                for &id in &self.rs[c as usize] {
                    self.wakes.push(ctx.txs.get(id).die);
                }
            }
        }
        self.rr_channel = (self.rr_channel + 1) % g.channels;
        self.chip_order = order;
    }

    /// Return RS entries that can no longer start (their plane lost its
    /// free pages) to the head of their queue, so the RS cannot deadlock.
    fn cancel_unissuable(&mut self, ctx: &PickCtx) {
        for chip in 0..self.rs.len() {
            let mut i = 0;
            while i < self.rs[chip].len() {
                let id = self.rs[chip][i];
                let t = ctx.txs.get(id);
                if ctx.can_issue(t) {
                    i += 1;
                    continue;
                }
                self.rs[chip].remove(i);
                self.rs_len -= 1;
                if class(t) == Class::Program && t.origin == Origin::User {
                    self.region_used += 1;
                }
                self.push_front(class(t), t.origin == Origin::Gc, id, t);
            }
        }
        for chip in 0..self.ctrl.len() {
            let mut i = 0;
            while i < self.ctrl[chip].len() {
                let id = self.ctrl[chip][i];
                let t = ctx.txs.get(id);
                if ctx.can_issue(t) {
                    i += 1;
                    continue;
                }
                self.ctrl[chip].remove(i);
                if class(t) == Class::Program && t.origin == Origin::User {
                    self.region_used += 1;
                }
                self.push_front(class(t), t.origin == Origin::Gc, id, t);
            }
        }
    }

    /// The RS entry `die` should run next: its oldest read, else its oldest
    /// other entry (reads in a chip-level set are served first, §III-C).
    fn rs_entry(&self, chip: usize, die: u32, ctx: &PickCtx) -> Option<usize> {
        let set = &self.rs[chip];
        let ok = |id: TxId| {
            let t = ctx.txs.get(id);
            t.die == die && ctx.can_issue(t)
        };
        set.iter()
            .position(|&id| ok(id) && class(ctx.txs.get(id)) == Class::Read)
            .or_else(|| set.iter().position(|&id| ok(id)))
    }

    fn forget_read(&mut self, t: &Tx) {
        if class(t) != Class::Read {
            return;
        }
        let block = self.geo.block_of(t.ppn);
        for (map, key) in [
            (&mut self.reads_by_block, block),
            (&mut self.reads_by_lpn, t.lpn),
        ] {
            if let Some(n) = map.get_mut(&key) {
                *n -= 1;
                if *n == 0 {
                    map.remove(&key);
                }
            }
        }
    }
}

impl TxScheduler for Aos {
    fn push(&mut self, id: TxId, tx: &Tx, _now: Ns) {
        self.changed();
        self.pending += 1;
        match class(tx) {
            Class::Read => {
                *self
                    .reads_by_block
                    .entry(self.geo.block_of(tx.ppn))
                    .or_default() += 1;
                *self.reads_by_lpn.entry(tx.lpn).or_default() += 1;
                self.push_back(Class::Read, false, id, tx);
            }
            Class::Program => {
                if tx.origin == Origin::User {
                    self.region_used += 1;
                }
                self.push_back(Class::Program, tx.origin == Origin::Gc, id, tx);
            }
            Class::Erase => self.push_back(Class::Erase, false, id, tx),
        }
    }

    fn caps(&self) -> TxCaps {
        TxCaps {
            coordinates: true,
            ..TxCaps::default()
        }
    }

    fn prepare(&mut self, ctx: &PickCtx) {
        // Events since the last pass may have changed what can start.
        self.changed();
        if self.pending > 0 {
            self.cancel_unissuable(ctx);
        }
        self.dispatch(ctx);
        if self.refill == Refill::Empty && self.rs_len > 0 {
            self.issue_rounds(ctx);
        }
    }

    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        if self.refill == Refill::Empty {
            return self.pick_ctrl(die, ctx);
        }
        let chip = self.geo.chip_of_die(die) as usize;
        let mut pos = self.rs_entry(chip, die, ctx);
        if pos.is_none() && self.rs_len < self.rs_cap {
            self.dispatch(ctx);
            pos = self.rs_entry(chip, die, ctx);
        }
        let id = self.rs[chip].remove(pos?)?;
        self.rs_len -= 1;
        self.took(id, ctx);
        // §III-C step 3: reads left behind raise the set's priority level.
        let reads_left = self.rs[chip]
            .iter()
            .any(|&e| class(ctx.txs.get(e)) == Class::Read);
        if self.rs[chip].is_empty() {
            self.prio[chip] = 0;
        } else if reads_left {
            self.prio[chip] += 1;
        }
        if self.rs_len == 0 {
            self.dispatch(ctx);
        }
        Some(id)
    }

    fn pending(&self) -> usize {
        self.pending
    }

    /// The controller combines a request of the lead's die and type on
    /// another plane into one multi-plane command: from the controller
    /// queue (`refill = "empty"`) or the chip-level set (`top-up`), whose
    /// conflict rule admitted it for exactly this sharing.
    fn pick_companion(&mut self, die: u32, lead: &Tx, taken: u64, ctx: &PickCtx) -> Option<TxId> {
        if !self.multiplane {
            return None;
        }
        let chip = self.geo.chip_of_die(die) as usize;
        let q = match self.refill {
            Refill::Empty => &mut self.ctrl[chip],
            Refill::TopUp => &mut self.rs[chip],
        };
        let pos = q
            .iter()
            .position(|&id| ctx.companion_ok(lead, ctx.txs.get(id), taken))?;
        let id = q.remove(pos)?;
        if self.refill == Refill::TopUp {
            self.rs_len -= 1;
            if self.rs[chip].is_empty() {
                self.prio[chip] = 0;
            }
        }
        self.took(id, ctx);
        Some(id)
    }

    fn wakes(&mut self, out: &mut Vec<u32>) {
        out.append(&mut self.wakes);
    }
}
