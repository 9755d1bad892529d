//! A queue of one type (a chip's in `mqsim-priority`, the device's in AOS),
//! kept as lanes by (plane, origin) with each entry's arrival number, so
//! "the first transaction in arrival order that can start" asks one
//! transaction per lane instead of scanning the queue, and a scan over the
//! transactions that can start ([`Lanes::scan`]) merges the lanes whose
//! head can.
//!
//! Whether a transaction can start ([`PickCtx::can_issue`]) reads of it only
//! its plane (and die), its origin and its kind, which a queue of one type
//! fixes (GC copyback moves wait with GC programs and are judged as they
//! are: both need a GC page); within one pick nothing else it reads
//! changes. So within a lane it holds for all or none, and the first
//! startable transaction is the earliest head among the lanes whose head
//! can start. Scanning the queue in arrival order found the same one, but
//! asked every transaction before it: a chip's thousands of programs
//! waiting for GC on a few planes, on every pick (72 % of a Postmark run at
//! queue depth 64 on `intel-750`, BENCHMARKS.md, session 51). AOS walked
//! its device-wide queues past the same programs on every dispatch
//! (session 52).
//!
//! [`PickCtx::can_issue`]: super::PickCtx::can_issue

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use crate::device::tx::TxId;

/// What [`Lanes::scan`] does with the entry it offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Visit {
    /// Remove it from the queue.
    Take,
    /// Leave it where it is and go on.
    Keep,
    /// Leave it and end the scan.
    Stop,
}

/// A scan's merge of lane heads, (next arrival, lane), and each lane's
/// place in it (reused from scan to scan).
#[derive(Debug, Default)]
pub(super) struct ScanScratch {
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    cursor: Vec<u32>,
}

/// Lanes per plane: one per origin (`Origin as usize` is below this), a
/// power of two so a lane's plane is a shift away.
const PER_PLANE_LOG2: u32 = 3;

/// A queue of one type.
#[derive(Debug, Clone, Default)]
pub(super) struct Lanes {
    /// Per lane (plane × 8 + origin; the plane of the chip for a chip's
    /// queue): (arrival, id, tag) in arrival order. The tag is the pusher's
    /// (`mqsim-priority`: what a multi-plane companion must share with its
    /// lead, `companion_tag`; [`Lanes::find`]); it fills what would be
    /// padding.
    lanes: Vec<VecDeque<(u64, TxId, u32)>>,
    /// Bit per non-empty lane.
    busy: Vec<u64>,
    len: usize,
}

/// The lanes of planes `first..first + n` as bits of a 64-lane word.
#[inline]
fn plane_bits(first: u32, n: u32) -> u64 {
    let (lo, width) = (first << PER_PLANE_LOG2, n << PER_PLANE_LOG2);
    if lo >= 64 {
        return 0;
    }
    let ones = if width >= 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    };
    ones << lo
}

impl Lanes {
    /// Planes a chip may have for its queues to fit one word of lanes.
    pub(super) const PLANES_IN_WORD: u32 = 64 >> PER_PLANE_LOG2;

    /// The lane of a transaction on plane `plane` of its chip (die in chip
    /// × planes per die + plane in die) from `origin` (`Origin as u8`).
    #[inline]
    pub(super) fn lane(plane: u32, origin: u8) -> usize {
        debug_assert!((origin as usize) < 1 << PER_PLANE_LOG2);
        ((plane as usize) << PER_PLANE_LOG2) | origin as usize
    }

    /// The plane (of the chip) of `lane`.
    #[inline]
    pub(super) fn plane_of(lane: usize) -> u32 {
        (lane >> PER_PLANE_LOG2) as u32
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Queue `id`, arrival number `seq` (increasing), in `lane`, with
    /// `tag` for [`Lanes::find`].
    pub(super) fn push(&mut self, lane: usize, seq: u64, id: TxId, tag: u32) {
        if lane >= self.lanes.len() {
            self.lanes.resize_with(lane + 1, VecDeque::new);
            self.busy.resize(self.lanes.len().div_ceil(64), 0);
        }
        self.lanes[lane].push_back((seq, id, tag));
        self.busy[lane / 64] |= 1 << (lane % 64);
        self.len += 1;
    }

    /// Queue `id` in `lane` ahead of everything queued, arrival number
    /// `seq` (below every queued one), with `tag`.
    pub(super) fn push_front(&mut self, lane: usize, seq: u64, id: TxId, tag: u32) {
        if lane >= self.lanes.len() {
            self.lanes.resize_with(lane + 1, VecDeque::new);
            self.busy.resize(self.lanes.len().div_ceil(64), 0);
        }
        debug_assert!(self.lanes[lane].front().is_none_or(|&(s, _, _)| seq < s));
        self.lanes[lane].push_front((seq, id, tag));
        self.busy[lane / 64] |= 1 << (lane % 64);
        self.len += 1;
    }

    /// Offer `visit`, in arrival order, every queued transaction whose lane
    /// `ok` accepts (`ok` is asked once per lane, of its head), until it
    /// says `Stop` or none is left: what walking the whole queue and
    /// skipping the entries `ok` refuses would offer. `scratch` is reused
    /// from scan to scan.
    pub(super) fn scan(
        &mut self,
        scratch: &mut ScanScratch,
        mut ok: impl FnMut(TxId) -> bool,
        mut visit: impl FnMut(TxId) -> Visit,
    ) {
        let ScanScratch { heap, cursor } = scratch;
        heap.clear();
        if cursor.len() < self.lanes.len() {
            cursor.resize(self.lanes.len(), 0);
        }
        for lane in self.busy_lanes() {
            let (seq, head) = self.head(lane);
            if ok(head) {
                cursor[lane] = 0;
                heap.push(Reverse((seq, lane as u32)));
            }
        }
        // The lane being visited is out of the heap: it stays current while
        // its next entry comes before every other lane's (no heap work), and
        // else trades places with the heap's top (one sift).
        let mut current = heap.pop().map(|Reverse((_, lane))| lane as usize);
        while let Some(l) = current {
            let at = cursor[l] as usize;
            let id = self.lanes[l][at].1;
            debug_assert!(ok(id), "can_issue varies within a lane");
            match visit(id) {
                Visit::Stop => break,
                Visit::Keep => cursor[l] += 1,
                Visit::Take => {
                    self.remove(l, at);
                }
            }
            current = match self.lanes[l].get(cursor[l] as usize) {
                None => heap.pop().map(|Reverse((_, lane))| lane as usize),
                Some(&(seq, _, _)) => match heap.peek_mut() {
                    Some(mut top) if top.0 .0 < seq => {
                        let Reverse((_, next)) =
                            std::mem::replace(&mut *top, Reverse((seq, l as u32)));
                        Some(next as usize)
                    }
                    _ => Some(l),
                },
            };
        }
    }

    /// The arrival number of `lane`'s head (the lane is not empty).
    #[inline]
    fn head(&self, lane: usize) -> (u64, TxId) {
        let (seq, id, _) = self.lanes[lane][0];
        (seq, id)
    }

    /// The lanes of the dies in `dies` (bit `k`: die `k` of the chip, of
    /// `ppd` planes) as bits of a 64-lane word (those beyond it left out).
    pub(super) fn die_mask(dies: u64, ppd: u32) -> u64 {
        let mut mask = 0;
        let mut d = dies;
        while d != 0 {
            mask |= plane_bits(d.trailing_zeros().saturating_mul(ppd), ppd);
            d &= d - 1;
        }
        mask
    }

    /// The lane whose head is the first transaction in arrival order among
    /// the lanes of the dies in `dies` (bit `k`: die `k` of the chip, of
    /// `ppd` planes) whose head `ok` accepts; heads are asked at most once
    /// each, earliest first.
    #[inline]
    pub(super) fn first(&self, dies: u64, ppd: u32, ok: impl FnMut(TxId) -> bool) -> Option<usize> {
        match self.busy.len() {
            1 => self.first_in(Lanes::die_mask(dies, ppd), ok),
            _ => self.first_wide(dies, ppd, ok),
        }
    }

    /// [`Lanes::first`] among the lanes in `mask` (the dies' lanes,
    /// [`Lanes::die_mask`]), for a queue of up to 64 lanes (8 planes a chip).
    #[inline]
    pub(super) fn first_in(&self, mask: u64, mut ok: impl FnMut(TxId) -> bool) -> Option<usize> {
        debug_assert!(self.busy.len() <= 1, "a queue of more than 64 lanes");
        let mut cand = self.busy.first().copied().unwrap_or(0) & mask;
        while cand != 0 {
            let mut lane = cand.trailing_zeros() as usize;
            // Mostly one lane: no search for the earliest head.
            let mut b = cand & (cand - 1);
            if b != 0 {
                let mut best = self.head(lane).0;
                while b != 0 {
                    let l = b.trailing_zeros() as usize;
                    b &= b - 1;
                    let seq = self.head(l).0;
                    if seq < best {
                        (best, lane) = (seq, l);
                    }
                }
            }
            if ok(self.head(lane).1) {
                return Some(lane);
            }
            cand &= !(1 << lane);
        }
        None
    }

    /// [`Lanes::first`] over more than 64 lanes (or none).
    #[cold]
    fn first_wide(&self, dies: u64, ppd: u32, mut ok: impl FnMut(TxId) -> bool) -> Option<usize> {
        let on_die = |lane: usize| {
            let die = Lanes::plane_of(lane) / ppd;
            die < 64 && dies & (1 << die) != 0
        };
        let mut rejected = vec![0u64; self.busy.len()];
        loop {
            let mut best: Option<(u64, usize)> = None;
            for lane in self.busy_lanes() {
                if rejected[lane / 64] & (1 << (lane % 64)) != 0 || !on_die(lane) {
                    continue;
                }
                let seq = self.head(lane).0;
                if best.is_none_or(|(s, _)| seq < s) {
                    best = Some((seq, lane));
                }
            }
            let (_, lane) = best?;
            if ok(self.head(lane).1) {
                return Some(lane);
            }
            rejected[lane / 64] |= 1 << (lane % 64);
        }
    }

    /// The non-empty lanes, in lane order.
    fn busy_lanes(&self) -> impl Iterator<Item = usize> + '_ {
        super::bits::ones(self.busy.iter().copied())
    }

    /// The first transaction in arrival order, among the lanes `pass` lets
    /// through, that `ok` accepts: (lane, position in it). Each lane is
    /// scanned up to its first accepted one (or the best found so far).
    /// Entries whose tag `tag_ok` refuses are passed over without asking
    /// `ok` (which reads the transaction; it is given the tag too): `tag_ok`
    /// must refuse only what `ok` would.
    pub(super) fn find(
        &self,
        pass: impl Fn(usize) -> bool,
        tag_ok: impl Fn(u32) -> bool,
        mut ok: impl FnMut(TxId, u32) -> bool,
    ) -> Option<(usize, usize)> {
        let mut best: Option<(u64, usize, usize)> = None;
        for lane in self.busy_lanes() {
            if !pass(lane) {
                continue;
            }
            let q = &self.lanes[lane];
            let limit = best.map_or(u64::MAX, |(s, _, _)| s);
            if let Some(pos) = q
                .iter()
                .take_while(|&&(seq, _, _)| seq < limit)
                .position(|&(_, id, tag)| tag_ok(tag) && ok(id, tag))
            {
                best = Some((q[pos].0, lane, pos));
            }
        }
        best.map(|(_, lane, pos)| (lane, pos))
    }

    /// Whether a lane `pass` lets through holds anything.
    pub(super) fn any(&self, pass: impl Fn(usize) -> bool) -> bool {
        self.busy_lanes().any(pass)
    }

    /// Take entry `pos` of `lane`.
    pub(super) fn remove(&mut self, lane: usize, pos: usize) -> Option<TxId> {
        let q = &mut self.lanes[lane];
        // Mostly the head: no shifting of the others.
        let (_, id, _) = if pos == 0 {
            q.pop_front()
        } else {
            q.remove(pos)
        }?;
        if q.is_empty() {
            self.busy[lane / 64] &= !(1 << (lane % 64));
        }
        self.len -= 1;
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries (lane, id) pushed in order; ids double as arrival numbers.
    fn lanes(entries: &[(usize, TxId)]) -> Lanes {
        let mut l = Lanes::default();
        for &(lane, id) in entries {
            l.push(lane, id as u64, id, id % 3);
        }
        l
    }

    /// The first acceptable in arrival order, whichever lane holds it; the
    /// lanes' heads are asked earliest first, each once; only the lanes of
    /// the dies asked for count. With more than 64 lanes the same.
    #[test]
    fn first_is_the_earliest_acceptable_head() {
        // Two planes a die: die 0 has planes 0-1 (lanes 0-15), die 1 planes
        // 2-3 (lanes 16-31); lane 70 is plane 8, die 4 (a wide queue).
        for wide in [false, true] {
            let mut entries = vec![(3, 1), (17, 2), (3, 3), (20, 4), (17, 5)];
            if wide {
                entries.push((70, 6));
            }
            let l = lanes(&entries);
            let mut asked = Vec::new();
            let got = l.first(0b11, 2, |id| {
                asked.push(id);
                id != 1 // lane 3's head (the first of all) cannot start
            });
            assert_eq!(got, Some(17), "wide: {wide}");
            assert_eq!(asked, [1, 2], "earliest heads first, lane 3 once");
            // Die 0 only: lane 3's head cannot start, nothing else there.
            assert_eq!(l.first(0b01, 2, |id| id != 1), None);
            // Die 1 only: its earliest head is lane 17's.
            assert_eq!(l.first(0b10, 2, |_| true), Some(17));
            assert_eq!(l.first(0b11, 2, |id| id == 4), Some(20));
            assert_eq!(l.first(0b11, 2, |_| false), None);
            if wide {
                assert_eq!(l.first(1 << 4, 2, |_| true), Some(70));
            }
        }
    }

    /// `find` scans within lanes and returns the earliest accepted entry
    /// overall; removing keeps the others in order.
    #[test]
    fn find_and_remove_keep_arrival_order() {
        let mut l = lanes(&[(0, 10), (1, 11), (0, 12), (1, 13), (0, 14)]);
        // Odd ids only, so lane 0 has none: lane 1's 11 is first.
        assert_eq!(
            l.find(|_| true, |_| true, |id, _| id % 2 == 1),
            Some((1, 0))
        );
        // Ids above 11: 12 (lane 0, position 1) comes before 13.
        assert_eq!(l.find(|_| true, |_| true, |id, _| id > 11), Some((0, 1)));
        assert_eq!(l.remove(0, 1), Some(12));
        assert_eq!(l.find(|_| true, |_| true, |id, _| id > 11), Some((1, 1)));
        assert_eq!(l.remove(0, 0), Some(10));
        assert_eq!(l.remove(0, 0), Some(14));
        assert!(!l.any(|lane| lane == 0), "lane 0 emptied");
        assert!(l.any(|lane| lane == 1));
        assert_eq!((l.remove(1, 0), l.remove(1, 0)), (Some(11), Some(13)));
        assert!(l.is_empty());
    }

    /// Entries whose tag `find` is told to refuse are passed over unasked:
    /// the earliest entry with an accepted tag that `ok` accepts wins.
    #[test]
    fn find_passes_refused_tags_without_asking() {
        // Tags are id % 3: 10 -> 1, 11 -> 2, 12 -> 0, 13 -> 1, 14 -> 2.
        let l = lanes(&[(0, 10), (1, 11), (0, 12), (1, 13), (0, 14)]);
        let mut asked = Vec::new();
        let got = l.find(
            |_| true,
            |tag| tag == 1,
            |id, tag| {
                assert_eq!(tag, id % 3);
                asked.push(id);
                id > 10
            },
        );
        assert_eq!(got, Some((1, 1)), "13, the only tag-1 entry past 10");
        asked.sort();
        assert_eq!(asked, [10, 13], "only tag-1 entries are asked");
        assert_eq!(l.find(|_| true, |tag| tag == 0, |_, _| true), Some((0, 1)));
        assert_eq!(l.find(|_| true, |tag| tag > 2, |_, _| true), None);
    }

    /// Every entry `scan` offers (each kept), over the lanes `ok` accepts.
    fn scanned(l: &mut Lanes, ok: impl Fn(TxId) -> bool) -> Vec<TxId> {
        let mut seen = Vec::new();
        l.scan(&mut ScanScratch::default(), ok, |id| {
            seen.push(id);
            Visit::Keep
        });
        seen
    }

    /// Entries of lanes 0 and 1 interleaved, one pushed to the front of
    /// lane 1: a scan over both lanes meets them in arrival order, one over
    /// lane 1 alone (its head accepted, lane 0's refused) meets lane 1's.
    #[test]
    fn scan_merges_lanes_in_arrival_order() {
        let mut l = lanes(&[(0, 10), (1, 11), (0, 12), (1, 13), (0, 14), (1, 15)]);
        l.push_front(1, 5, 5, 0);
        assert_eq!(scanned(&mut l, |_| true), [5, 10, 11, 12, 13, 14, 15]);
        assert_eq!(
            scanned(&mut l, |id| id % 2 == 1 || id == 5),
            [5, 11, 13, 15]
        );
    }

    /// Taken entries leave the queue (a lane emptied is no longer busy); a
    /// stop ends the scan before the entry it was offered.
    #[test]
    fn scan_takes_and_stops() {
        let mut l = lanes(&[(0, 10), (1, 11), (2, 12), (3, 13), (4, 14)]);
        let mut n = 0;
        l.scan(
            &mut ScanScratch::default(),
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
        assert_eq!(l.len, 3);
        assert!(
            !l.any(|lane| lane == 0 || lane == 2),
            "lanes 0 and 2 emptied"
        );
        assert_eq!(scanned(&mut l, |_| true), [11, 13, 14]);
        l.scan(&mut ScanScratch::default(), |_| true, |_| Visit::Take);
        assert!(l.is_empty());
        assert!(!l.any(|_| true));
    }

    #[test]
    fn lanes_name_plane_and_origin() {
        let lane = Lanes::lane(6, 3);
        assert_eq!(Lanes::plane_of(lane), 6);
        assert_ne!(Lanes::lane(6, 4), lane);
        assert_eq!(Lanes::plane_of(Lanes::lane(6, 4)), 6);
    }
}
