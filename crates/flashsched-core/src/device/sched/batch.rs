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

/// A set of chips (or channels) as a bit mask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChipSet {
    words: Vec<u64>,
}

impl ChipSet {
    /// An empty set with room for members `0..n`.
    pub fn with_capacity(n: u32) -> Self {
        ChipSet {
            words: vec![0; n.div_ceil(64).max(1) as usize],
        }
    }
    /// Add `i`.
    #[inline]
    pub fn insert(&mut self, i: u32) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }
    /// Remove `i`.
    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.words[(i / 64) as usize] &= !(1 << (i % 64));
    }
    /// Whether `i` is a member.
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    /// Whether the sets share a member.
    #[inline]
    pub fn intersects(&self, o: &ChipSet) -> bool {
        self.words.iter().zip(&o.words).any(|(a, b)| a & b != 0)
    }
    /// Add every member of `o`.
    #[inline]
    pub fn union_with(&mut self, o: &ChipSet) {
        for (a, b) in self.words.iter_mut().zip(&o.words) {
            *a |= b;
        }
    }
    /// Remove every member.
    pub fn clear(&mut self) {
        self.words.fill(0);
    }
    /// No member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }
    /// Members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            (0..64)
                .filter(move |b| bits >> b & 1 == 1)
                .map(move |b| w as u32 * 64 + b)
        })
    }
}

/// One request waiting in a batch list.
#[derive(Debug, Clone)]
struct Req {
    txs: Vec<TxId>,
    /// Chips whose sub-requests are not released yet.
    chips: ChipSet,
}

#[derive(Debug, Clone)]
struct ChannelBatch {
    channels: ChipSet,
    reqs: Vec<usize>,
}

#[derive(Debug, Clone)]
struct ChipBatch {
    chips: ChipSet,
    groups: Vec<ChannelBatch>,
}

/// Chip batches (each split into channel batches when `channel_level`).
#[derive(Debug, Clone, Default)]
pub struct BatchQueue {
    batches: VecDeque<ChipBatch>,
    channel_level: bool,
}

impl BatchQueue {
    /// An empty queue; `channel_level` splits chip batches into channel
    /// batches.
    pub fn new(channel_level: bool) -> Self {
        BatchQueue {
            batches: VecDeque::new(),
            channel_level,
        }
    }

    /// Add a request touching `chips` / `channels`: into the first chip batch
    /// with no common chip (else a new one), and inside it into the first
    /// channel batch with no common channel (else a new one). Returns the
    /// (chip batch, channel batch) positions.
    pub fn insert(&mut self, req: usize, chips: &ChipSet, channels: &ChipSet) -> (usize, usize) {
        let pos = match self.batches.iter().position(|b| !b.chips.intersects(chips)) {
            Some(p) => p,
            None => {
                self.batches.push_back(ChipBatch {
                    chips: ChipSet::with_capacity(chips.words.len() as u32 * 64),
                    groups: Vec::new(),
                });
                self.batches.len() - 1
            }
        };
        let b = &mut self.batches[pos];
        b.chips.union_with(chips);
        let g = if self.channel_level {
            b.groups
                .iter()
                .position(|g| !g.channels.intersects(channels))
        } else if b.groups.is_empty() {
            None
        } else {
            Some(0)
        };
        let g = match g {
            Some(g) => g,
            None => {
                b.groups.push(ChannelBatch {
                    channels: ChipSet::with_capacity(channels.words.len() as u32 * 64),
                    reqs: Vec::new(),
                });
                b.groups.len() - 1
            }
        };
        b.groups[g].channels.union_with(channels);
        b.groups[g].reqs.push(req);
        (pos, g)
    }

    /// No batch left.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// Requests per chip batch (for tests and diagnostics), each as its
    /// channel batches.
    pub fn layout(&self) -> Vec<Vec<Vec<usize>>> {
        self.batches
            .iter()
            .map(|b| b.groups.iter().map(|g| g.reqs.clone()).collect())
            .collect()
    }
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
    /// Released user transactions per die.
    ready: Vec<VecDeque<TxId>>,
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
        }
    }

    /// Non-conflicting writes get `pref` instead of the slowest block.
    pub fn with_free_choice(mut self, pref: SpeedPref) -> Self {
        self.free_pref = pref;
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
            let mut chips = ChipSet::with_capacity(n_units);
            let mut channels = ChipSet::with_capacity(self.geo.channels);
            for &id in &staged[i..j] {
                let t = ctx.txs.get(id);
                chips.insert(unit_of(self.unit, &self.geo, t));
                channels.insert(self.geo.channel_of_die(t.die));
            }
            for c in chips.iter() {
                self.nr[c as usize] += 1;
            }
            let req = Req {
                txs: staged[i..j].to_vec(),
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

    /// Release every sub-request (a request's pages on one chip) that may
    /// start now. Batches are scanned in order (read list first unless writes
    /// are owed a turn); a sub-request on chip `c` is released when its dies
    /// hold no released, unstarted work and no earlier request still holding
    /// (or just released on) `c` precedes it. Conflicting requests thus keep
    /// their batch order on every chip they share, while a busy chip delays
    /// only the work that needs it.
    fn release(&mut self, ctx: &PickCtx) {
        let writes_first = !self.writes.is_empty() && self.read_streak >= self.max_read_batches;
        self.claimed.clear();
        for pass in 0..2 {
            let is_read = (pass == 0) != writes_first;
            let mut q = std::mem::take(if is_read {
                &mut self.reads
            } else {
                &mut self.writes
            });
            let mut b = 0;
            while b < q.batches.len() {
                let mut held = false;
                for g in q.batches[b].groups.iter_mut() {
                    if held {
                        // Behind an unfinished channel batch: these chips
                        // are spoken for, later batches may not overtake.
                        for &r in &g.reqs {
                            if let Some(req) = self.reqs[r].as_ref() {
                                self.claimed.union_with(&req.chips);
                            }
                        }
                        continue;
                    }
                    g.reqs.retain(|&r| {
                        let Some(req) = self.reqs[r].as_mut() else {
                            return false;
                        };
                        // Walk the chip bits without allocating (hot path).
                        for w in 0..req.chips.words.len() {
                            let mut bits = req.chips.words[w];
                            while bits != 0 {
                                let c = w as u32 * 64 + bits.trailing_zeros();
                                bits &= bits - 1;
                                if self.claimed.contains(c) {
                                    continue;
                                }
                                self.claimed.insert(c);
                                let free = req.txs.iter().all(|&id| {
                                    let t = ctx.txs.get(id);
                                    unit_of(self.unit, &self.geo, t) != c
                                        || self.ready[t.die as usize].is_empty()
                                });
                                if free {
                                    req.chips.remove(c);
                                    self.released.push((r, c));
                                }
                            }
                        }
                        !req.chips.is_empty()
                    });
                    held = self.channel_barrier && !g.reqs.is_empty();
                }
                if q.batches[b].groups.iter().all(|g| g.reqs.is_empty()) {
                    q.batches.remove(b);
                    if is_read {
                        if !self.writes.is_empty() || !q.is_empty() {
                            self.read_streak += 1;
                        }
                    } else {
                        self.read_streak = 0;
                    }
                } else {
                    b += 1;
                }
            }
            *(if is_read {
                &mut self.reads
            } else {
                &mut self.writes
            }) = q;
        }
        if !self.released.is_empty() {
            self.hand_out(ctx);
        }
    }

    /// Move released sub-requests' transactions to their dies' ready queues.
    fn hand_out(&mut self, ctx: &PickCtx) {
        let released = std::mem::take(&mut self.released);
        for &(r, c) in &released {
            // Variation-aware allocation (VIOS §3.3): a sub-request whose chip
            // still has other queued requests (NR > 1) gets a fast block.
            let fast = self.nr[c as usize] > 1;
            self.nr[c as usize] -= 1;
            let Some(req) = self.reqs[r].as_mut() else {
                continue;
            };
            let mut i = 0;
            while i < req.txs.len() {
                let id = req.txs[i];
                let t = ctx.txs.get(id);
                if unit_of(self.unit, &self.geo, t) != c {
                    i += 1;
                    continue;
                }
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
                self.ready[t.die as usize].push_back(id);
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
        let q = &mut self.ready[die as usize];
        let pos = q.iter().position(|&id| ctx.can_issue(ctx.txs.get(id)));
        if let Some(pos) = pos {
            let id = q.remove(pos)?;
            self.pending -= 1;
            if self.ready[die as usize].is_empty() {
                self.release(ctx);
            }
            return Some(id);
        }
        let q = &mut self.gc[die as usize];
        let pos = q.iter().position(|&id| ctx.can_issue(ctx.txs.get(id)))?;
        self.pending -= 1;
        q.remove(pos)
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
        for q in [&mut self.ready[die as usize], &mut self.gc[die as usize]] {
            if let Some(pos) = q
                .iter()
                .position(|&id| ctx.companion_ok(lead, ctx.txs.get(id), taken))
            {
                self.pending -= 1;
                return q.remove(pos);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn set(n: u32, xs: &[u32]) -> ChipSet {
        let mut s = ChipSet::with_capacity(n);
        for &x in xs {
            s.insert(x);
        }
        s
    }

    /// VIOS Fig. 3 rule: a request on chips {6, 7} joins the first chip batch
    /// (A_chip becomes {0,1,2,4,5,6,7}) and, inside it, the second channel
    /// batch (A_channel becomes {0,1,2,3}). Chips are striped over 4
    /// channels (channel = chip % 4).
    #[test]
    fn hierarchical_insert_follows_fig3_rule() {
        let ch = |cs: &[u32]| set(4, &cs.iter().map(|c| c % 4).collect::<Vec<_>>());
        let mut q = BatchQueue::new(true);
        let reqs: [&[u32]; 5] = [&[0, 1], &[2], &[4, 5], &[0, 2], &[1]];
        for (i, r) in reqs.iter().enumerate() {
            q.insert(i, &set(8, r), &ch(r));
        }
        assert_eq!(
            q.layout(),
            vec![vec![vec![0, 1], vec![2]], vec![vec![3, 4]]]
        );
        let (b, g) = q.insert(5, &set(8, &[6, 7]), &ch(&[6, 7]));
        assert_eq!((b, g), (0, 1));
        assert_eq!(q.batches[0].chips, set(8, &[0, 1, 2, 4, 5, 6, 7]));
        assert_eq!(q.batches[0].groups[1].channels, set(4, &[0, 1, 2, 3]));
    }

    #[test]
    fn no_chip_batch_holds_conflicting_requests() {
        let mut rng = crate::rng::Rng::new(3);
        let mut q = BatchQueue::new(true);
        let mut sets = Vec::new();
        for i in 0..500 {
            let mut s = set(64, &[]);
            for _ in 0..1 + rng.below(4) {
                s.insert(rng.below(64) as u32);
            }
            let chans = set(8, &s.iter().map(|c| c / 8).collect::<Vec<_>>());
            q.insert(i, &s, &chans);
            sets.push(s);
        }
        for batch in q.layout() {
            let members: Vec<usize> = batch.iter().flatten().copied().collect();
            for (a, &x) in members.iter().enumerate() {
                for &y in &members[a + 1..] {
                    assert!(
                        !sets[x].intersects(&sets[y]),
                        "requests {x} and {y} share a chip"
                    );
                }
            }
        }
    }
}
