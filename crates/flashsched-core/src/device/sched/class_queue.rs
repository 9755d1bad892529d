//! A device-wide pending queue kept as lanes by what
//! [`PickCtx::can_issue`] reads of a transaction (its plane, and so its die
//! and chip; its origin, kind and whether it is a copyback move), each entry
//! with its arrival number. Within one dispatch nothing else that answer
//! reads changes, so it holds for a whole lane: a scan in arrival order over
//! the transactions that can start asks once per lane and merges the lanes
//! that can, instead of walking past every entry that cannot.
//!
//! AOS's program queue holds thousands of programs waiting for GC on a few
//! planes while blocking GC runs; dispatching walked past all of them
//! (asking a per-class memo) several times per instant: 70 % of a Postmark
//! run at queue depth 64 on `intel-750` (BENCHMARKS.md, session 52).
//!
//! [`PickCtx::can_issue`]: super::PickCtx::can_issue

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::device::tx::{Tx, TxId};

/// No lane for this class yet.
const NO_LANE: u32 = u32::MAX;

/// The class of `t`: everything `can_issue` reads of it.
#[inline]
fn class_key(t: &Tx) -> usize {
    (t.plane as usize) << 6
        | (t.origin as usize) << 3
        | (t.kind as usize) << 1
        | t.copyback as usize
}

/// What a scan does with the entry it offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Visit {
    /// Remove it from the queue.
    Take,
    /// Leave it where it is and go on.
    Keep,
    /// Leave it and end the scan.
    Stop,
}

/// One pending queue (arrival order across lanes).
#[derive(Debug, Default)]
pub(super) struct ClassQueue {
    /// Lane of each class key (`NO_LANE` until one is seen).
    lane_of: Vec<u32>,
    /// Per lane: (arrival, id), in arrival order.
    lanes: Vec<VecDeque<(i64, TxId)>>,
    /// The non-empty lanes, and each lane's place in that list.
    busy: Vec<u32>,
    busy_at: Vec<u32>,
    len: usize,
    /// Arrival numbers: the next at the back, the last taken at the front.
    back: i64,
    front: i64,
    /// A scan's merge of lane heads (reused): (next arrival, lane).
    heap: BinaryHeap<Reverse<(i64, u32)>>,
    cursor: Vec<u32>,
}

impl ClassQueue {
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The lane of `t`'s class (made on first sight).
    fn lane(&mut self, t: &Tx) -> usize {
        let key = class_key(t);
        if key >= self.lane_of.len() {
            self.lane_of.resize(key + 1, NO_LANE);
        }
        if self.lane_of[key] == NO_LANE {
            self.lane_of[key] = self.lanes.len() as u32;
            self.lanes.push(VecDeque::new());
            self.busy_at.push(NO_LANE);
            self.cursor.push(0);
        }
        self.lane_of[key] as usize
    }

    /// Note that `lane` has entries now.
    fn occupied(&mut self, lane: usize) {
        if self.busy_at[lane] == NO_LANE {
            self.busy_at[lane] = self.busy.len() as u32;
            self.busy.push(lane as u32);
        }
    }

    /// Queue `id` (transaction `t`) last.
    pub(super) fn push_back(&mut self, id: TxId, t: &Tx) {
        let lane = self.lane(t);
        self.back += 1;
        self.lanes[lane].push_back((self.back, id));
        self.occupied(lane);
        self.len += 1;
    }

    /// Queue `id` (transaction `t`) first, ahead of everything queued.
    pub(super) fn push_front(&mut self, id: TxId, t: &Tx) {
        let lane = self.lane(t);
        self.lanes[lane].push_front((self.front, id));
        self.front -= 1;
        self.occupied(lane);
        self.len += 1;
    }

    /// Offer `visit`, in arrival order, every queued transaction whose lane
    /// `ok` accepts (`ok` is asked once per lane, of its head), until it
    /// says `Stop` or none is left. The result is that of walking the whole
    /// queue and skipping the entries `ok` refuses.
    pub(super) fn scan(
        &mut self,
        mut ok: impl FnMut(TxId) -> bool,
        mut visit: impl FnMut(TxId) -> Visit,
    ) {
        let mut heap = std::mem::take(&mut self.heap);
        heap.clear();
        for &lane in &self.busy {
            let (seq, head) = self.lanes[lane as usize][0];
            if ok(head) {
                self.cursor[lane as usize] = 0;
                heap.push(Reverse((seq, lane)));
            }
        }
        let mut emptied = false;
        // The lane being visited is out of the heap: it stays current while
        // its next entry comes before every other lane's (no heap work), and
        // else trades places with the heap's top (one sift).
        let mut current = heap.pop().map(|Reverse((_, lane))| lane);
        while let Some(lane) = current {
            let l = lane as usize;
            let at = self.cursor[l] as usize;
            let id = self.lanes[l][at].1;
            debug_assert!(ok(id), "can_issue varies within a class");
            match visit(id) {
                Visit::Stop => break,
                Visit::Keep => self.cursor[l] += 1,
                Visit::Take => {
                    self.lanes[l].remove(at);
                    self.len -= 1;
                    emptied |= self.lanes[l].is_empty();
                }
            }
            current = match self.lanes[l].get(self.cursor[l] as usize) {
                None => heap.pop().map(|Reverse((_, lane))| lane),
                Some(&(seq, _)) => match heap.peek_mut() {
                    Some(mut top) if top.0 .0 < seq => {
                        let Reverse((_, next)) = std::mem::replace(&mut *top, Reverse((seq, lane)));
                        Some(next)
                    }
                    _ => Some(lane),
                },
            };
        }
        self.heap = heap;
        if emptied {
            self.drop_empty();
        }
    }

    /// Take emptied lanes off the busy list.
    fn drop_empty(&mut self) {
        let mut i = 0;
        while i < self.busy.len() {
            let lane = self.busy[i] as usize;
            if self.lanes[lane].is_empty() {
                self.busy_at[lane] = NO_LANE;
                self.busy.swap_remove(i);
                if let Some(&moved) = self.busy.get(i) {
                    self.busy_at[moved as usize] = i as u32;
                }
            } else {
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tx::{Origin, TxArena, TxKind};

    fn tx(plane: u32, origin: Origin) -> Tx {
        Tx {
            kind: TxKind::Program,
            origin,
            copyback: false,
            die: plane,
            plane,
            lpn: 0,
            ppn: 0,
            owner: 0,
            epoch: 0,
            seq: 0,
            enqueued: 0,
            sectors: 0,
        }
    }

    /// Entries on planes 0 and 1 interleaved, one pushed to the front: the
    /// scan over both lanes meets them in arrival order, and one over
    /// plane 1 alone meets plane 1's in its order.
    #[test]
    fn scan_merges_lanes_in_arrival_order() {
        let mut arena = TxArena::default();
        let mut q = ClassQueue::default();
        let mut ids = Vec::new();
        for i in 0..6u32 {
            let t = tx(i % 2, Origin::User);
            let id = arena.insert(t);
            ids.push(id);
            q.push_back(id, &t);
        }
        let t = tx(1, Origin::Gc);
        let first = arena.insert(t);
        q.push_front(first, &t);
        let mut seen = Vec::new();
        q.scan(
            |_| true,
            |id| {
                seen.push(id);
                Visit::Keep
            },
        );
        let mut want = vec![first];
        want.extend(&ids);
        assert_eq!(seen, want);

        seen.clear();
        q.scan(
            |id| arena.get(id).plane == 1,
            |id| {
                seen.push(id);
                Visit::Keep
            },
        );
        assert_eq!(seen, vec![first, ids[1], ids[3], ids[5]]);
    }

    /// Taken entries leave the queue (lanes emptied drop off the busy
    /// list); a stop ends the scan before the entry it was offered.
    #[test]
    fn take_removes_and_stop_ends() {
        let mut arena = TxArena::default();
        let mut q = ClassQueue::default();
        let mut ids = Vec::new();
        for i in 0..5u32 {
            let t = tx(i, Origin::User);
            let id = arena.insert(t);
            ids.push(id);
            q.push_back(id, &t);
        }
        let mut n = 0;
        q.scan(
            |_| true,
            |_| {
                n += 1;
                match n {
                    1 | 3 => Visit::Take,
                    2 => Visit::Keep,
                    _ => Visit::Stop,
                }
            },
        );
        assert_eq!(q.len, 3);
        assert_eq!(q.busy.len(), 3);
        let mut left = Vec::new();
        q.scan(
            |_| true,
            |id| {
                left.push(id);
                Visit::Keep
            },
        );
        assert_eq!(left, vec![ids[1], ids[3], ids[4]]);
        q.scan(|_| true, |_| Visit::Take);
        assert!(q.is_empty());
        assert!(q.busy.is_empty());
    }
}
