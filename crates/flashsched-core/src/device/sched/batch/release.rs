//! The release scan of [`BatchCore`]: which waiting sub-requests go to
//! their dies' ready queues now.

use super::BatchCore;
use crate::device::sched::batch_queue::BatchQueue;
use crate::device::sched::PickCtx;

/// Batches a release scan walks one by one before it visits only those
/// where something can happen (`BatchQueue::stops`, which costs a lookup
/// per unit and a search per batch visited): most scans of a short list
/// stop within them.
pub(super) const WALK_WHOLE: usize = 8;

/// What walking one batch came to.
enum Walk {
    /// Every unit with waiting work is claimed: the scan ends.
    Stop,
    /// The batch was emptied and dropped.
    Dropped,
    /// The batch stays.
    Kept,
}

impl BatchCore {
    /// Release every sub-request (a request's pages on one chip) that may
    /// start now. Batches are scanned in order (read list first unless writes
    /// are owed a turn); a sub-request on chip `c` is released when its dies
    /// hold no released, unstarted work (with `reads_first`, a read: no
    /// released, unstarted read) and no earlier request still holding
    /// (or just released on) `c` precedes it. Conflicting requests thus keep
    /// their batch order on every chip they share, while a busy chip delays
    /// only the work that needs it.
    ///
    /// Every unit a waiting request holds unreleased has `nr > 0`, and the
    /// scan only claims such units: once it has claimed them all, no later
    /// request can release anything, and the scan stops (it changed nothing
    /// past that point). A queue of thousands of requests behind GC was
    /// otherwise scanned whole on every decide pass (PIQ on a Postmark run
    /// at queue depth 64: 154 s, BENCHMARKS.md, session 51).
    ///
    /// Nor does a request whose units earlier requests all claimed change
    /// anything: in a long list the scan visits only the batches holding
    /// some unit first (`BatchQueue::stops`) and passes the others (the
    /// same run: 6.1 -> 2.8 s, session 52).
    pub(super) fn release(&mut self, ctx: &PickCtx) {
        if !std::mem::take(&mut self.rescan) {
            return;
        }
        let writes_first = !self.writes.is_empty() && self.read_streak >= self.max_read_batches;
        self.claimed.clear();
        debug_assert!(self
            .nr
            .iter()
            .enumerate()
            .all(|(u, &n)| (n > 0) == self.live.contains(u as u32)));
        let live = self.live.len();
        let mut claimed = 0;
        let mut stops = std::mem::take(&mut self.stops);
        'passes: for pass in 0..2 {
            let is_read = (pass == 0) != writes_first;
            let mut q = std::mem::take(if is_read {
                &mut self.reads
            } else {
                &mut self.writes
            });
            // The first batches walked whole, then (a long list) only those
            // where something can happen.
            let mut b = 0;
            let mut walked = 0;
            while b < q.batches.len() && walked < self.walk_whole {
                walked += 1;
                match self.walk_batch(&mut q, b, is_read, live, &mut claimed, ctx) {
                    Walk::Stop => {
                        self.stash(is_read, q);
                        break 'passes;
                    }
                    Walk::Dropped => {}
                    Walk::Kept => b += 1,
                }
            }
            if b < q.batches.len() {
                // Units first held in the batches walked are claimed, and
                // ghosts among them dropped: every stop is further on.
                q.stops(&self.live, &self.claimed, &mut stops);
                let mut passed = b;
                for &id in &stops {
                    let Some(b) = q.position(id) else {
                        debug_assert!(false, "a stop names a dropped batch");
                        continue;
                    };
                    debug_assert!(self.inert(&q, passed, b), "a passed batch would change");
                    match self.walk_batch(&mut q, b, is_read, live, &mut claimed, ctx) {
                        Walk::Stop => {
                            self.stash(is_read, q);
                            break 'passes;
                        }
                        Walk::Dropped => passed = b,
                        Walk::Kept => passed = b + 1,
                    }
                }
                debug_assert!(
                    self.inert(&q, passed, q.batches.len()),
                    "a passed batch would change"
                );
            }
            self.stash(is_read, q);
        }
        self.stops = stops;
        if !self.released.is_empty() {
            self.hand_out(ctx);
        }
    }

    /// Walk batch `b` of `q` (the read list if `is_read`): claim the units
    /// of its requests in order, releasing the sub-requests that may start,
    /// until every one of the `live` units with waiting work is claimed.
    #[inline(always)]
    fn walk_batch(
        &mut self,
        q: &mut BatchQueue,
        b: usize,
        is_read: bool,
        live: u32,
        claimed: &mut u32,
        ctx: &PickCtx,
    ) -> Walk {
        // Reads first: a read need not wait for released writes.
        let past_writes = is_read && self.reads_first;
        let bid = q.batches[b].id;
        let mut held = false;
        let mut stopped = false;
        for g in q.batches[b].groups.iter_mut() {
            if *claimed == live {
                // Every unit with waiting work is claimed.
                debug_assert!(self.units_live(), "a waiting request's unit has nr = 0");
                stopped = true;
                break;
            }
            if held {
                // Behind an unfinished channel batch: these chips are
                // spoken for, later batches may not overtake.
                for &r in &g.reqs {
                    if let Some(req) = self.reqs[r].as_ref() {
                        self.claimed.union_with(&req.chips);
                    }
                }
                *claimed = self.claimed.len();
                continue;
            }
            g.reqs.retain(|&r| {
                let Some(req) = self.reqs[r].as_mut() else {
                    return false;
                };
                if req.chips.is_subset(&self.claimed) {
                    return true; // all its chips go to earlier requests
                }
                // Walk the chip bits without allocating (hot path).
                for w in 0..req.chips.words().len() {
                    let mut bits = req.chips.words()[w];
                    while bits != 0 {
                        let c = w as u32 * 64 + bits.trailing_zeros();
                        bits &= bits - 1;
                        if self.claimed.contains(c) {
                            continue;
                        }
                        self.claimed.insert(c);
                        *claimed += 1;
                        let free = req.txs.iter().all(|m| {
                            debug_assert_eq!(m.die, ctx.txs.get(m.id).die, "a waiting tx moved");
                            let d = m.die as usize;
                            m.unit != c
                                || (self.ready_reads[d].is_empty()
                                    && (past_writes || self.ready[d].is_empty()))
                        });
                        if free {
                            req.chips.remove(c);
                            BatchQueue::released(&mut q.holders, c, bid);
                            self.released.push((r, c));
                        }
                    }
                }
                !req.chips.is_empty()
            });
            held = self.channel_barrier && !g.reqs.is_empty();
        }
        let empty = q.batches[b].groups.iter().all(|g| g.reqs.is_empty());
        if stopped {
            // Emptied, but the walk stopped before its end, where an empty
            // batch is dropped: a later walk that passes it drops it.
            if empty {
                q.ghost(bid);
            }
            return Walk::Stop;
        }
        if !empty {
            return Walk::Kept;
        }
        q.remove_batch(b);
        if is_read {
            if !self.writes.is_empty() || !q.is_empty() {
                self.read_streak += 1;
            }
        } else {
            self.read_streak = 0;
        }
        Walk::Dropped
    }

    /// Debug check of a release scan's shortcut: the batches `from..to` of
    /// `q` it passes would change nothing (each request's units are claimed
    /// already, and none is empty).
    fn inert(&self, q: &BatchQueue, from: usize, to: usize) -> bool {
        q.batches.range(from..to).all(|b| {
            !b.groups.iter().all(|g| g.reqs.is_empty())
                && b.groups.iter().flat_map(|g| &g.reqs).all(|&r| {
                    self.reqs[r]
                        .as_ref()
                        .is_some_and(|req| req.chips.is_subset(&self.claimed))
                })
        })
    }

    /// Every unit a waiting request holds unreleased has `nr > 0` (what
    /// lets a scan stop once it has claimed all those units, and pass over
    /// a batch whose units are all claimed).
    fn units_live(&self) -> bool {
        self.reqs
            .iter()
            .flatten()
            .all(|r| r.chips.iter().all(|c| self.nr[c as usize] > 0))
    }

    /// Put back the read (or write) batch list taken for a scan.
    fn stash(&mut self, is_read: bool, q: BatchQueue) {
        *(if is_read {
            &mut self.reads
        } else {
            &mut self.writes
        }) = q;
    }
}
